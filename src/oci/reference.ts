/**
 * Image references as `crossplane render` parses them (go-containerregistry's `name` package):
 * `[host[:port]/]path[:tag][@sha256:<hex>]`. The first component is a registry host only when it
 * holds a `.` or a `:` or is `localhost`; otherwise the image is on Docker Hub
 * (`index.docker.io`, one-component paths under `library/`). A digest wins over a tag.
 */
export interface ImageReference {
  /** host[:port] as written (Docker Hub normalised to index.docker.io). */
  registry: string;
  repository: string;
  tag?: string;
  digest?: string;
}

export class ReferenceError extends Error {}

const DOCKER_HUB = "index.docker.io";
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const HOST = /^(?:\[[0-9a-fA-F:.]+\]|[a-zA-Z0-9](?:[a-zA-Z0-9.-]*[a-zA-Z0-9])?)(?::\d{1,5})?$/;

export function parseReference(text: string): ImageReference {
  const ref = text.trim();
  if (!ref || ref.length > 1024 || /\s/.test(ref)) throw new ReferenceError(`"${text}" is not an image reference`);
  let rest = ref;
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw new ReferenceError(`"${text}": the digest must be sha256:<64 hex digits>`);
  }
  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf("/");
  const colon = rest.lastIndexOf(":");
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw new ReferenceError(`"${text}": "${tag}" is not a valid tag`);
  }
  const parts = rest.split("/");
  let registry = DOCKER_HUB;
  if (parts.length > 1 && (parts[0]!.includes(".") || parts[0]!.includes(":") || parts[0] === "localhost")) {
    registry = parts.shift()!;
    if (!HOST.test(registry)) throw new ReferenceError(`"${text}": "${registry}" is not a registry host`);
  }
  if (registry === "docker.io") registry = DOCKER_HUB;
  if (registry === DOCKER_HUB && parts.length === 1) parts.unshift("library");
  if (!parts.length || !parts.every((p) => PATH_COMPONENT.test(p))) throw new ReferenceError(`"${text}": the repository must be lower-case path components`);
  return { registry, repository: parts.join("/"), ...(digest ? { digest } : { tag: tag ?? "latest" }) };
}

/** The reference written back out: `registry/repository[:tag][@digest]`. */
export function formatReference(ref: ImageReference): string {
  return `${ref.registry}/${ref.repository}${ref.digest ? `@${ref.digest}` : `:${ref.tag ?? "latest"}`}`;
}

/** Where the distribution API is: Docker Hub answers at registry-1.docker.io. */
export function apiHost(registry: string): string {
  return registry === DOCKER_HUB ? "registry-1.docker.io" : registry;
}

/**
 * Plain HTTP only for registries on a loopback address, as Docker treats 127.0.0.0/8 as
 * insecure by default; everything else is HTTPS.
 */
export function isLoopbackRegistry(registry: string): boolean {
  const host = hostOf(registry);
  return host === "localhost" || host.endsWith(".localhost") || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === "::1";
}

export function hostOf(registry: string): string {
  if (registry.startsWith("[")) return registry.slice(1, registry.indexOf("]"));
  const colon = registry.lastIndexOf(":");
  return colon >= 0 ? registry.slice(0, colon) : registry;
}

export function registryBaseUrl(registry: string): string {
  return `${isLoopbackRegistry(registry) ? "http" : "https"}://${apiHost(registry)}`;
}
