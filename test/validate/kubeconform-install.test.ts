import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { layer } from "../oci/registry-server.js";

/**
 * The Action's kubeconform installer checks the downloaded archive against the SHA-256 pinned for
 * the release before it unpacks or caches anything (issue 35). The release is served from
 * 127.0.0.1 by the test.
 */

describe("installing kubeconform", () => {
  let server: http.Server;
  let base = "";
  let archive: Buffer;
  const saved = { cache: process.env.RUNNER_TOOL_CACHE, temp: process.env.RUNNER_TEMP };

  beforeAll(async () => {
    archive = await layer([{ name: "kubeconform", content: "#!/bin/sh\necho v0.0.0-test\n", mode: 0o755 }]);
    server = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(archive);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    process.env.RUNNER_TOOL_CACHE = fs.mkdtempSync(path.join(os.tmpdir(), "cci-toolcache-"));
    process.env.RUNNER_TEMP = fs.mkdtempSync(path.join(os.tmpdir(), "cci-runnertemp-"));
  });
  afterAll(() => {
    server.close();
    process.env.RUNNER_TOOL_CACHE = saved.cache;
    process.env.RUNNER_TEMP = saved.temp;
  });

  it("pins the SHA-256 of every archive it may download for the release it installs", async () => {
    const { KUBECONFORM_SHA256, KUBECONFORM_VERSION } = await import("../../src/validate/kubeconform-install.js");
    expect(KUBECONFORM_VERSION).toBe("0.6.7");
    expect(Object.keys(KUBECONFORM_SHA256).sort()).toEqual(["darwin-amd64", "darwin-arm64", "linux-amd64", "linux-arm64"]);
    for (const sum of Object.values(KUBECONFORM_SHA256)) expect(sum).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses an archive whose digest is not the pinned one, and caches nothing", async () => {
    const { installKubeconform } = await import("../../src/validate/kubeconform-install.js");
    await expect(
      installKubeconform({
        version: "9.9.9",
        baseUrl: base,
        checksums: { "linux-amd64": "0".repeat(64), "linux-arm64": "0".repeat(64), "darwin-amd64": "0".repeat(64), "darwin-arm64": "0".repeat(64) },
      }),
    ).rejects.toThrow(/SHA-256 .* is not the pinned 0{64}/);
    expect(fs.readdirSync(process.env.RUNNER_TOOL_CACHE!)).toEqual([]);
  });

  it("installs an archive whose digest is the pinned one", async () => {
    const { installKubeconform } = await import("../../src/validate/kubeconform-install.js");
    const sum = crypto.createHash("sha256").update(archive).digest("hex");
    const binary = await installKubeconform({
      version: "9.9.8",
      baseUrl: base,
      checksums: { "linux-amd64": sum, "linux-arm64": sum, "darwin-amd64": sum, "darwin-arm64": sum },
    });
    expect(fs.readFileSync(binary, "utf8")).toContain("v0.0.0-test");
  });

  it("a platform with no pinned digest is refused before anything is downloaded", async () => {
    const { installKubeconform } = await import("../../src/validate/kubeconform-install.js");
    await expect(installKubeconform({ version: "9.9.7", baseUrl: base, checksums: {} })).rejects.toThrow(/no pinned SHA-256 for kubeconform 9.9.7 on/);
  });
});
