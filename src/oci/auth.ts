// oci/: the OCI client: references, registry auth, pulls checked by digest, the content-addressed cache, unpacking.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Registry credentials as the docker CLI keeps them: `auths` of `$DOCKER_CONFIG/config.json`
 * (else `~/.docker/config.json`), then `$REGISTRY_AUTH_FILE` (podman, skopeo). Credential
 * helpers are programs: they are not run; a registry that only has one is pulled anonymously,
 * and the pull failure says so.
 */
export interface Credentials {
  username?: string;
  password?: string;
  /** An OAuth refresh token (`identitytoken`). */
  identityToken?: string;
  /** A bearer token to send as it is (`registrytoken`). */
  registryToken?: string;
}

interface AuthEntry {
  auth?: string;
  username?: string;
  password?: string;
  identitytoken?: string;
  registrytoken?: string;
}

interface ConfigFile {
  auths?: Record<string, AuthEntry>;
  credHelpers?: Record<string, string>;
  credsStore?: string;
}

const DOCKER_HUB_KEYS = ["https://index.docker.io/v1/", "index.docker.io", "docker.io", "registry-1.docker.io"];

export function dockerConfigFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  const files = [path.join(env.DOCKER_CONFIG || path.join(os.homedir(), ".docker"), "config.json")];
  if (env.REGISTRY_AUTH_FILE) files.push(env.REGISTRY_AUTH_FILE);
  return files;
}

/** Credentials for a registry host, or what is known about why there are none. */
export function credentialsFor(registry: string, files = dockerConfigFiles()): { credentials?: Credentials; helper?: string } {
  let helper: string | undefined;
  for (const file of files) {
    const config = readConfig(file);
    if (!config) continue;
    const entry = findEntry(config.auths ?? {}, registry);
    if (entry) {
      const credentials = fromEntry(entry);
      if (credentials) return { credentials };
    }
    helper ??= config.credHelpers?.[registry] ?? config.credsStore;
  }
  return helper ? { helper } : {};
}

function readConfig(file: string): ConfigFile | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
    return parsed && typeof parsed === "object" ? (parsed as ConfigFile) : undefined;
  } catch {
    return undefined;
  }
}

/** docker's lookup: the exact key, then keys reduced to their host (`https://host/v1/` → `host`). */
function findEntry(auths: Record<string, AuthEntry>, registry: string): AuthEntry | undefined {
  const wanted = registry === "index.docker.io" ? DOCKER_HUB_KEYS : [registry];
  for (const key of wanted) if (auths[key]) return auths[key];
  for (const [key, entry] of Object.entries(auths)) {
    if (wanted.includes(hostOfKey(key))) return entry;
  }
  return undefined;
}

function hostOfKey(key: string): string {
  return key.replace(/^https?:\/\//, "").split("/")[0]!;
}

function fromEntry(entry: AuthEntry): Credentials | undefined {
  if (entry.registrytoken) return { registryToken: entry.registrytoken };
  let { username, password } = entry;
  if (entry.auth) {
    const decoded = Buffer.from(entry.auth, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon > 0) {
      username = decoded.slice(0, colon);
      password = decoded.slice(colon + 1);
    }
  }
  if (entry.identitytoken) return { username, identityToken: entry.identitytoken };
  return username !== undefined && password !== undefined ? { username, password } : undefined;
}

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/**
 * The challenges of a `WWW-Authenticate` header: `Bearer realm="…",service="…",scope="…"`.
 * Quoted values may hold commas (`scope="repository:a:pull,push"`). Scanned once, left to right.
 */
export function parseChallenges(header: string): Challenge[] {
  const out: Challenge[] = [];
  let i = 0;
  const skip = (chars: string) => {
    while (i < header.length && chars.includes(header[i]!)) i++;
  };
  const token = () => {
    const start = i;
    while (i < header.length && !' \t,="'.includes(header[i]!)) i++;
    return header.slice(start, i);
  };
  while (i < header.length) {
    skip(" \t,");
    const scheme = token();
    if (!scheme) break;
    const challenge: Challenge = { scheme: scheme.toLowerCase(), params: {} };
    out.push(challenge);
    for (;;) {
      skip(" \t,");
      const mark = i;
      const key = token();
      skip(" \t");
      if (!key || header[i] !== "=") {
        i = mark;
        break;
      }
      i++;
      skip(" \t");
      let value = "";
      if (header[i] === '"') {
        i++;
        while (i < header.length && header[i] !== '"') {
          if (header[i] === "\\" && i + 1 < header.length) i++;
          value += header[i++];
        }
        i++;
      } else value = token();
      challenge.params[key.toLowerCase()] = value;
    }
  }
  return out;
}

export function basicAuth(c: Credentials): string | undefined {
  return c.username !== undefined && c.password !== undefined ? `Basic ${Buffer.from(`${c.username}:${c.password}`).toString("base64")}` : undefined;
}
