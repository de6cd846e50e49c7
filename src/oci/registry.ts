import { basicAuth, credentialsFor, parseChallenges, type Credentials } from "./auth.js";
import { hostOf, isLoopbackRegistry, registryBaseUrl } from "./reference.js";

/**
 * The distribution API over fetch: GET with the registry's auth (anonymous or with the docker
 * config's credentials, Basic or a bearer token from the `WWW-Authenticate` challenge), redirects
 * to blob storage followed by hand (credentials go to the registry only), retries with backoff on
 * network errors, 429 and 5xx, and a timeout per attempt.
 */

export interface RegistryOptions {
  /** Per attempt, until the response headers (default 30 s). */
  timeoutMs?: number;
  /** Attempts for one request (default 3). */
  attempts?: number;
  /** First backoff (default 500 ms), doubled per attempt. */
  retryBaseMs?: number;
  /** Counts every HTTP request made (the tests and `functions pull` read it). */
  onRequest?: (url: string) => void;
  /** Where credentials come from (default: the docker config files). */
  credentials?: (registry: string) => { credentials?: Credentials; helper?: string };
}

export class RegistryError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

const MAX_REDIRECTS = 10;

export class RegistryClient {
  private readonly tokens = new Map<string, string>();
  /** Hosts that did not resolve or refused the connection in this run: not asked again. */
  private readonly unreachable = new Map<string, string>();
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly retryBaseMs: number;

  constructor(private readonly options: RegistryOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.attempts = options.attempts ?? 3;
    this.retryBaseMs = options.retryBaseMs ?? 500;
  }

  /** GET `/v2/<repository>/<path>` on a registry; the response is OK (2xx) or a RegistryError. */
  async get(registry: string, repository: string, resource: string, accept?: string): Promise<Response> {
    const url = `${registryBaseUrl(registry)}/v2/${repository}/${resource}`;
    const scope = `repository:${repository}:pull`;
    let response = await this.send(url, registry, scope, accept);
    if (response.status === 401) {
      const authorization = await this.authorize(registry, scope, response.headers.get("www-authenticate") ?? "");
      await response.body?.cancel();
      if (authorization) response = await this.send(url, registry, scope, accept, authorization);
    }
    if (!response.ok) throw await registryError(response, url, this.credentialHint(registry));
    return response;
  }

  private authKey(registry: string, scope: string) {
    return `${registry}|${scope}`;
  }

  /** One request with retries, following redirects; Authorization only to the registry's own host. */
  private async send(url: string, registry: string, scope: string, accept?: string, authorization?: string): Promise<Response> {
    const auth = authorization ?? this.tokens.get(this.authKey(registry, scope));
    let target = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const sameHost = new URL(target).host === new URL(url).host;
      const headers: Record<string, string> = {};
      if (accept) headers.accept = accept;
      if (auth && sameHost) headers.authorization = auth;
      const response = await this.withRetries(target, headers);
      if (response.status >= 300 && response.status < 400 && response.headers.get("location")) {
        await response.body?.cancel();
        const next = new URL(response.headers.get("location")!, target);
        checkedRedirect(registry, url, next);
        target = next.toString();
        continue;
      }
      return response;
    }
    throw new RegistryError(`${url}: more than ${MAX_REDIRECTS} redirects`);
  }

  private async withRetries(url: string, headers: Record<string, string>): Promise<Response> {
    const host = new URL(url).host;
    const down = this.unreachable.get(host);
    if (down) throw new RegistryError(`${url}: ${down}`);
    let lastError: unknown;
    for (let attempt = 0; attempt < this.attempts; attempt++) {
      if (attempt > 0) await sleep(this.retryBaseMs * 2 ** (attempt - 1));
      this.options.onRequest?.(url);
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(timeoutError()), this.timeoutMs);
      try {
        const response = idleGuard(await fetch(url, { headers, redirect: "manual", signal: controller.signal }), controller, this.timeoutMs);
        if (response.status === 429 || response.status >= 500) {
          lastError = await registryError(response, url);
          continue;
        }
        return response;
      } catch (err) {
        lastError =
          (err as Error).name === "TimeoutError"
            ? new RegistryError(`${url}: no answer within ${this.timeoutMs / 1000}s`)
            : new RegistryError(`${url}: ${causeOf(err)}`);
        // A host that does not exist or refuses connections will not answer the next attempt either.
        const code = (err as { cause?: { code?: string } }).cause?.code;
        if (code === "ENOTFOUND" || code === "ECONNREFUSED") {
          this.unreachable.set(host, causeOf(err));
          break;
        }
      } finally {
        clearTimeout(timer);
      }
    }
    throw lastError;
  }

  /** The Authorization a 401's challenge asks for, remembered for the registry and scope. */
  private async authorize(registry: string, scope: string, header: string): Promise<string | undefined> {
    const { credentials } = this.lookupCredentials(registry);
    const challenges = parseChallenges(header);
    const bearer = challenges.find((c) => c.scheme === "bearer");
    let authorization: string | undefined;
    if (credentials?.registryToken) authorization = `Bearer ${credentials.registryToken}`;
    else if (bearer?.params.realm) authorization = await this.bearerToken(registry, bearer.params, scope, credentials);
    else if (challenges.some((c) => c.scheme === "basic") && credentials) authorization = basicAuth(credentials);
    if (authorization) this.tokens.set(this.authKey(registry, scope), authorization);
    return authorization;
  }

  private async bearerToken(registry: string, params: Record<string, string>, scope: string, credentials?: Credentials): Promise<string> {
    const realm = checkedRealm(registry, params.realm!);
    realm.searchParams.set("scope", params.scope || scope);
    if (params.service) realm.searchParams.set("service", params.service);
    const headers: Record<string, string> = {};
    const basic = credentials && basicAuth(credentials);
    let response: Response;
    if (credentials?.identityToken) {
      const form = new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: credentials.identityToken,
        scope: params.scope || scope,
        client_id: "composition-ci",
      });
      if (params.service) form.set("service", params.service);
      this.options.onRequest?.(realm.origin + realm.pathname);
      response = await fetch(realm.origin + realm.pathname, { method: "POST", body: form, signal: AbortSignal.timeout(this.timeoutMs) }).catch((err) => {
        throw new RegistryError(`token from ${realm.host}: ${causeOf(err)}`);
      });
    } else {
      if (basic) headers.authorization = basic;
      response = await this.withRetries(realm.toString(), headers);
    }
    if (!response.ok) throw await registryError(response, `token from ${realm.host}`, this.credentialHint(registry));
    const body = (await response.json().catch(() => ({}))) as { token?: unknown; access_token?: unknown };
    const token = typeof body.token === "string" ? body.token : typeof body.access_token === "string" ? body.access_token : undefined;
    if (!token) throw new RegistryError(`token from ${realm.host}: the answer holds no token`);
    return `Bearer ${token}`;
  }

  private lookupCredentials(registry: string) {
    return (this.options.credentials ?? credentialsFor)(registry);
  }

  private credentialHint(registry: string): string | undefined {
    const { credentials, helper } = this.lookupCredentials(registry);
    if (credentials) return undefined;
    if (helper)
      return `the docker config names the credential helper "${helper}" for ${registry}, which composition-ci does not run; put the credentials under auths (docker/login-action does)`;
    return `no credentials for ${registry} in the docker config (docker login ${registry})`;
  }
}

/**
 * A token endpoint on a loopback or private address is only trusted when it is the registry's own
 * host (as go-containerregistry refuses), and an HTTPS registry's realm must be HTTPS.
 */
function checkedRealm(registry: string, realmText: string): URL {
  let realm: URL;
  try {
    realm = new URL(realmText);
  } catch {
    throw new RegistryError(`${registry}: the token realm "${realmText}" is not a URL`);
  }
  const registryIsLoopback = isLoopbackRegistry(registry);
  if (realm.protocol === "http:" && !(registryIsLoopback && isLoopbackRegistry(realm.host))) {
    throw new RegistryError(`${registry}: the token realm ${realm.origin} is not HTTPS`);
  }
  const host = hostOf(realm.host);
  if ((isLoopbackRegistry(realm.host) || isPrivateAddress(host)) && realm.host !== registry) {
    throw new RegistryError(`${registry}: the token realm ${realm.origin} is a local address other than the registry's`);
  }
  return realm;
}

/**
 * Where a registry may send us: HTTPS, or plain HTTP on loopback only for a loopback registry;
 * a loopback or private address only when the registry is there itself (as for token realms).
 */
function checkedRedirect(registry: string, url: string, next: URL): void {
  const registryLocal = isLoopbackRegistry(registry);
  const ok = next.protocol === "https:" || (next.protocol === "http:" && registryLocal && isLoopbackRegistry(next.host));
  if (!ok) throw new RegistryError(`${url}: redirected to ${next.protocol}//${next.host}, which is neither HTTPS nor the registry's loopback`);
  const local = isLoopbackRegistry(next.host) || isPrivateAddress(hostOf(next.host));
  if (local && !registryLocal && next.host !== registry)
    throw new RegistryError(`${url}: redirected to ${next.host}, a local address other than the registry's`);
}

function isPrivateAddress(host: string): boolean {
  return /^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|169\.254\.)/.test(host) || /^f[cd][0-9a-f]{2}:/i.test(host) || /^fe80:/i.test(host);
}

async function registryError(response: Response, what: string, hint?: string): Promise<RegistryError> {
  const text = await response.text().catch(() => "");
  let detail = "";
  try {
    const errors = (JSON.parse(text) as { errors?: { code?: string; message?: string }[] }).errors ?? [];
    detail = errors.map((e) => [e.code, e.message].filter(Boolean).join(": ")).join("; ");
  } catch {
    detail = text.slice(0, 200).replace(/\s+/g, " ").trim();
  }
  const auth = (response.status === 401 || response.status === 403 || response.status === 404) && hint ? ` (${hint})` : "";
  return new RegistryError(`${what}: HTTP ${response.status}${detail ? ` ${detail}` : ""}${auth}`, response.status);
}

function timeoutError(): Error {
  const err = new Error("timed out");
  err.name = "TimeoutError";
  return err;
}

/** The response with its body aborted when no bytes arrive for `ms` (a stalled download). */
function idleGuard(response: Response, controller: AbortController, ms: number): Response {
  if (!response.body) return response;
  let timer = setTimeout(() => controller.abort(timeoutError()), ms);
  timer.unref();
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        clearTimeout(timer);
        timer = setTimeout(() => controller.abort(timeoutError()), ms);
        timer.unref();
        out.enqueue(chunk);
      },
      flush() {
        clearTimeout(timer);
      },
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

const NETWORK_CODES: Record<string, string> = {
  ENOTFOUND: "the host name does not resolve (no network here?)",
  EAI_AGAIN: "the host name does not resolve (no network here?)",
  ECONNREFUSED: "the connection was refused",
  ECONNRESET: "the connection was reset",
  ETIMEDOUT: "the connection timed out",
  ENETUNREACH: "the network is unreachable",
};

function causeOf(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  const code = e.cause?.code;
  return code ? (NETWORK_CODES[code] ? `${NETWORK_CODES[code]} (${code})` : code) : (e.cause?.message ?? e.message);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
