import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseChallenges, credentialsFor } from "../../src/oci/auth.js";
import { pullImage, PullError, type PullOptions } from "../../src/oci/image.js";
import { parseReference, formatReference } from "../../src/oci/reference.js";
import { RegistryClient } from "../../src/oci/registry.js";
import { confinedLinkTarget } from "../../src/oci/unpack.js";
import { hasZstd, layer, TestRegistry } from "./registry-server.js";

describe("image references, as crossplane render parses them", () => {
  it.each([
    [
      "xpkg.crossplane.io/crossplane-contrib/function-kcl:v0.12.0",
      { registry: "xpkg.crossplane.io", repository: "crossplane-contrib/function-kcl", tag: "v0.12.0" },
    ],
    ["crossplane-contrib/function-kcl", { registry: "index.docker.io", repository: "crossplane-contrib/function-kcl", tag: "latest" }],
    ["nginx", { registry: "index.docker.io", repository: "library/nginx", tag: "latest" }],
    ["docker.io/library/nginx:1.27", { registry: "index.docker.io", repository: "library/nginx", tag: "1.27" }],
    ["localhost:5000/fn:v1", { registry: "localhost:5000", repository: "fn", tag: "v1" }],
    [`127.0.0.1:5000/a/b:v1@sha256:${"a".repeat(64)}`, { registry: "127.0.0.1:5000", repository: "a/b", digest: `sha256:${"a".repeat(64)}` }],
  ])("%s", (text, expected) => {
    expect(parseReference(text)).toEqual(expected);
  });

  it("refuses what is not a reference", () => {
    for (const bad of ["", "UPPER/case", "a b", "x@sha256:short", "host.io/repo:bad:tag"]) expect(() => parseReference(bad), bad).toThrow();
  });

  it("writes a reference back out", () => {
    expect(formatReference(parseReference("nginx"))).toBe("index.docker.io/library/nginx:latest");
  });
});

describe("WWW-Authenticate challenges", () => {
  it("reads quoted values with commas and several challenges", () => {
    expect(parseChallenges(`Bearer realm="https://auth.io/token",service="registry.io",scope="repository:a/b:pull,push", Basic realm="x"`)).toEqual([
      { scheme: "bearer", params: { realm: "https://auth.io/token", service: "registry.io", scope: "repository:a/b:pull,push" } },
      { scheme: "basic", params: { realm: "x" } },
    ]);
  });
});

describe("docker config credentials", () => {
  it("finds auths by host, Docker Hub under its v1 key, and names a helper it does not run", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-docker-"));
    const file = path.join(dir, "config.json");
    fs.writeFileSync(
      file,
      JSON.stringify({
        auths: {
          "https://index.docker.io/v1/": { auth: Buffer.from("hub:pw").toString("base64") },
          "https://ghcr.io": { username: "u", password: "p:with:colons" },
        },
        credHelpers: { "123.dkr.ecr.us-east-1.amazonaws.com": "ecr-login" },
      }),
    );
    expect(credentialsFor("index.docker.io", [file])).toEqual({ credentials: { username: "hub", password: "pw" } });
    expect(credentialsFor("ghcr.io", [file])).toEqual({ credentials: { username: "u", password: "p:with:colons" } });
    expect(credentialsFor("123.dkr.ecr.us-east-1.amazonaws.com", [file])).toEqual({ helper: "ecr-login" });
    expect(credentialsFor("quay.io", [file])).toEqual({});
  });
});

describe("symbolic links stay inside the image", () => {
  it.each([
    ["var/run", "/run", "../run"],
    ["lib", "usr/lib", "usr/lib"],
    ["a/b/evil", "../../../../etc/passwd", "../../etc/passwd"],
    ["evil", "/etc/passwd", "etc/passwd"],
  ])("%s -> %s is written as %s", (name, target, written) => {
    expect(confinedLinkTarget(name, target)).toBe(written);
  });
});

describe("pulling an image from a registry on 127.0.0.1", () => {
  const registry = new TestRegistry();
  let cacheDir = "";
  let requests = 0;
  const options = (extra: Partial<PullOptions> = {}): PullOptions => ({
    cacheDir,
    client: new RegistryClient({ retryBaseMs: 5, timeoutMs: 2000, onRequest: () => requests++, credentials: () => ({}) }),
    platform: { os: "linux", architecture: "amd64" },
    resolved: new Map(),
    ...extra,
  });

  beforeAll(() => registry.start());
  afterAll(() => registry.stop());
  beforeEach(() => {
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-oci-"));
    requests = 0;
    registry.auth = "bearer";
    registry.redirectBlobs = false;
    registry.failures.length = 0;
    registry.corrupt.clear();
  });

  async function pushLayered(repository: string, tag = "v1") {
    const base = await layer([
      { name: "etc/", type: "directory" },
      { name: "etc/gone", content: "lower" },
      { name: "opaque/", type: "directory" },
      { name: "opaque/old", content: "lower" },
      { name: "usr/", type: "directory" },
      { name: "usr/lib/", type: "directory" },
      { name: "lib", type: "symlink", linkname: "usr/lib" },
      { name: "var/", type: "directory" },
      { name: "var/run", type: "symlink", linkname: "/run" },
      { name: "dev/", type: "directory" },
      { name: "dev/null", type: "character-device" },
      { name: "function", content: "#!/bin/sh\necho hi\n", mode: 0o4755 },
    ]);
    const top = await layer(
      [
        { name: "etc/.wh.gone" },
        { name: "opaque/.wh..wh..opq" },
        { name: "opaque/new", content: "upper" },
        { name: "lib/through-link", content: "merged usr" },
        { name: "hard", type: "link", linkname: "function" },
      ],
      hasZstd ? "zstd" : "none",
    );
    return registry.push(
      repository,
      tag,
      {
        "linux/amd64": {
          layers: [
            { bytes: base, compression: "gzip" },
            { bytes: top, compression: hasZstd ? "zstd" : "none" },
          ],
        },
        "linux/arm64": { layers: [{ bytes: base, compression: "gzip" }] },
      },
      { attestation: true },
    );
  }

  it("resolves a multi-platform index for this platform, with a token, and applies layers with whiteouts", async () => {
    const pushed = await pushLayered("acme/fn");
    const image = await pullImage(`${registry.host}/acme/fn:v1`, options());
    expect(image.digest).toBe(pushed.manifests["linux/amd64"]);
    expect(image.config.Entrypoint).toEqual(["/function"]);
    const r = (p: string) => path.join(image.root, p);
    expect(fs.existsSync(r("etc/gone"))).toBe(false);
    expect(fs.readdirSync(r("opaque"))).toEqual(["new"]);
    expect(fs.readFileSync(r("usr/lib/through-link"), "utf8")).toBe("merged usr");
    expect(fs.readlinkSync(r("var/run"))).toBe("../run");
    expect(fs.existsSync(r("dev/null"))).toBe(false);
    // Set-id bits dropped, and read-only: a function cannot change what the cache holds for another.
    expect(fs.statSync(r("function")).mode & 0o7777).toBe(0o555);
    expect(fs.readFileSync(r("hard"), "utf8")).toContain("echo hi");
    expect(registry.requests.some((q) => q.url.startsWith("/token"))).toBe(true);
    expect(
      registry.requests.filter((q) => q.url.startsWith("/v2/")).every((q) => q.authorization === undefined || q.authorization.startsWith("Bearer token-")),
    ).toBe(true);
  });

  it("a second run makes no request for a digest-pinned or already-resolved reference", async () => {
    const pushed = await pushLayered("acme/again");
    await pullImage(`${registry.host}/acme/again:v1`, options());
    requests = 0;
    await pullImage(`${registry.host}/acme/again:v1`, options());
    await pullImage(`${registry.host}/acme/again@${pushed.index}`, options());
    expect(requests).toBe(0);
    const before = registry.requests.length;
    await pullImage(`${registry.host}/acme/again:v1`, options({ pullPolicy: "Always" }));
    const asked = registry.requests.slice(before).map((q) => q.url);
    // Always re-resolves the tag (a 401, the token, the manifest) and fetches no blob again.
    expect(asked.filter((u) => u.includes("/manifests/v1"))).toHaveLength(2);
    expect(asked.some((u) => u.includes("/blobs/"))).toBe(false);
  });

  it("a tag is resolved once per run, even with pull policy Always", async () => {
    await pushLayered("acme/once");
    const resolved = new Map<string, string>();
    await pullImage(`${registry.host}/acme/once:v1`, options({ resolved, pullPolicy: "Always" }));
    requests = 0;
    await pullImage(`${registry.host}/acme/once:v1`, options({ resolved, pullPolicy: "Always" }));
    expect(requests).toBe(0);
  });

  it("offline, a missing image says so and makes no request", async () => {
    await pushLayered("acme/offline");
    const err = await pullImage(`${registry.host}/acme/offline:v1`, options({ offline: true })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PullError);
    expect((err as PullError).kind).toBe("offline");
    expect((err as Error).message).toBe(`${registry.host}/acme/offline:v1 is not in the cache (--offline)`);
    expect(requests).toBe(0);
  });

  it("follows a redirect to blob storage without sending the registry's token there", async () => {
    await pushLayered("acme/redirect");
    registry.redirectBlobs = true;
    await pullImage(`${registry.host}/acme/redirect:v1`, options());
    expect(registry.storageRequests.length).toBeGreaterThan(0);
    expect(registry.storageRequests.every((q) => q.authorization === undefined)).toBe(true);
  });

  it("a blob that does not match its digest is refused and nothing is kept or unpacked", async () => {
    const base = await layer([{ name: "function", content: "#!/bin/sh\n" }]);
    registry.push("acme/corrupt", "v1", { "linux/amd64": { layers: [{ bytes: base, compression: "gzip" }] } });
    registry.corrupt.add(`sha256:${(await import("node:crypto")).createHash("sha256").update(base).digest("hex")}`);
    const err = await pullImage(`${registry.host}/acme/corrupt:v1`, options()).catch((e: unknown) => e);
    expect((err as PullError).kind).toBe("integrity");
    expect((err as Error).message).toMatch(/does not match its digest/);
    expect(fs.existsSync(path.join(cacheDir, "oci", "rootfs")) ? fs.readdirSync(path.join(cacheDir, "oci", "rootfs")) : []).toEqual([]);
  });

  it.each([
    ["a name with ../", [{ name: "../escape", content: "x" }]],
    ["a hard link out of the image", [{ name: "h", type: "link" as const, linkname: "../../etc/passwd" }]],
  ])("refuses %s", async (_what, entries) => {
    const bad = await layer(entries);
    registry.push("acme/escape", "v1", { "linux/amd64": { layers: [{ bytes: bad, compression: "gzip" }] } });
    const err = await pullImage(`${registry.host}/acme/escape:v1`, options()).catch((e: unknown) => e);
    expect((err as PullError).kind).toBe("integrity");
    expect(fs.existsSync(path.join(cacheDir, "..", "escape"))).toBe(false);
  });

  it("a whiteout of `..` is refused, and the cache of other images stays", async () => {
    const other = await layer([{ name: "function", content: "x" }]);
    registry.push("acme/kept", "v1", { "linux/amd64": { layers: [{ bytes: other, compression: "gzip" }] } });
    const kept = await pullImage(`${registry.host}/acme/kept:v1`, options());
    const bad = await layer([{ name: "dir/", type: "directory" }, { name: "dir/.wh..." }]);
    registry.push("acme/wh-dotdot", "v1", { "linux/amd64": { layers: [{ bytes: bad, compression: "gzip" }] } });
    const err = await pullImage(`${registry.host}/acme/wh-dotdot:v1`, options()).catch((e: unknown) => e);
    expect((err as PullError).kind).toBe("integrity");
    expect(fs.existsSync(path.join(kept.root, "function"))).toBe(true);
  });

  it("a directory a later layer removes (rm -rf of apt lists) unpacks", async () => {
    const lower = await layer([
      { name: "var/", type: "directory" },
      { name: "var/lists/", type: "directory" },
      { name: "var/lists/partial/", type: "directory" },
      { name: "var/lists/a", content: "a" },
    ]);
    const upper = await layer([{ name: "var/lists/.wh..wh..opq" }, { name: "function", content: "x" }]);
    registry.push("acme/apt", "v1", {
      "linux/amd64": {
        layers: [
          { bytes: lower, compression: "gzip" },
          { bytes: upper, compression: "gzip" },
        ],
      },
    });
    const image = await pullImage(`${registry.host}/acme/apt:v1`, options());
    expect(fs.readdirSync(path.join(image.root, "var/lists"))).toEqual([]);
  });

  it("an absolute symbolic link is confined: a file written through it lands inside the image", async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "cci-outside-"));
    const bad = await layer([
      { name: "evil", type: "symlink", linkname: outside },
      { name: "evil/planted", content: "x" },
    ]);
    registry.push("acme/symlink", "v1", { "linux/amd64": { layers: [{ bytes: bad, compression: "gzip" }] } });
    const image = await pullImage(`${registry.host}/acme/symlink:v1`, options());
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.readFileSync(path.join(image.root, outside, "planted"), "utf8")).toBe("x");
    expect(path.resolve(image.root, fs.readlinkSync(path.join(image.root, "evil"))).startsWith(image.root)).toBe(true);
  });

  it("an image with no build for this platform says which it has", async () => {
    const l = await layer([{ name: "function", content: "x" }]);
    registry.push("acme/arm-only", "v1", { "linux/arm64": { layers: [{ bytes: l, compression: "gzip" }] } });
    const err = await pullImage(`${registry.host}/acme/arm-only:v1`, options()).catch((e: unknown) => e);
    expect((err as PullError).kind).toBe("platform");
    expect((err as Error).message).toContain("has no image for linux/amd64 (it has linux/arm64)");
  });

  it("retries a 500 and gives up with the registry's words; a 404 is not retried", async () => {
    await pushLayered("acme/flaky");
    registry.failures.push({ pattern: /manifests/, status: 500, times: 1 });
    // whether each request for the tag the registry saw carried a token
    const tagRequests = (repository: string) => registry.requests.filter((q) => q.url === `/v2/${repository}/manifests/v1`).map((q) => !!q.authorization);
    await expect(pullImage(`${registry.host}/acme/flaky:v1`, options())).resolves.toBeDefined();
    // the 500, the same request again (answered 401), then with the token
    expect(tagRequests("acme/flaky")).toEqual([false, false, true]);
    const err = await pullImage(`${registry.host}/acme/missing:v1`, options()).catch((e: unknown) => e);
    expect((err as PullError).kind).toBe("registry");
    expect((err as Error).message).toContain("HTTP 404 MANIFEST_UNKNOWN");
    // the 401, then the 404 once
    expect(tagRequests("acme/missing")).toEqual([false, true]);
  });

  it("a registry that never answers times out", async () => {
    await pushLayered("acme/hang");
    registry.failures.push({ pattern: /manifests/, status: "hang" });
    const client = new RegistryClient({ retryBaseMs: 5, timeoutMs: 200, attempts: 2, credentials: () => ({}) });
    const err = await pullImage(`${registry.host}/acme/hang:v1`, options({ client })).catch((e: unknown) => e);
    expect((err as PullError).kind).toBe("registry");
    expect((err as Error).message).toContain("no answer within 0.2s");
  });

  it("Basic credentials from the docker config reach the registry, and only it", async () => {
    const l = await layer([{ name: "function", content: "x" }]);
    registry.push("private/fn", "v1", { "linux/amd64": { layers: [{ bytes: l, compression: "gzip" }] } });
    registry.auth = "basic";
    registry.credentials = { username: "robot", password: "s3cret" };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-docker-"));
    fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify({ auths: { [registry.host]: { auth: Buffer.from("robot:s3cret").toString("base64") } } }));
    const client = new RegistryClient({ retryBaseMs: 5, credentials: (r) => credentialsFor(r, [path.join(dir, "config.json")]) });
    await expect(pullImage(`${registry.host}/private/fn:v1`, options({ client }))).resolves.toBeDefined();
    registry.credentials = undefined;
  });

  it("limits a layer's size", async () => {
    const big = await layer([{ name: "big", content: Buffer.alloc(64 * 1024, 1) }], "none");
    registry.push("acme/big", "v1", { "linux/amd64": { layers: [{ bytes: big, compression: "none" }] } });
    const err = await pullImage(`${registry.host}/acme/big:v1`, options({ limits: { maxLayerBytes: 1024 } })).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/over the limit|larger than the limit/);
  });
});
