import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as tc from "@actions/tool-cache";

/** The kubeconform release the Action installs (input `kubeconform: true`). */
export const KUBECONFORM_VERSION = "0.6.7";

/**
 * The SHA-256 of each archive of that release, by `<os>-<arch>` (the release's CHECKSUMS file).
 * What is downloaded is checked against it before it is unpacked, cached or run; a platform with
 * no entry here (Windows) is refused: install kubeconform yourself and name it with --kubeconform-path.
 */
export const KUBECONFORM_SHA256: Readonly<Record<string, string>> = {
  "linux-amd64": "95f14e87aa28c09d5941f11bd024c1d02fdc0303ccaa23f61cef67bc92619d73",
  "linux-arm64": "dc82f79bb03c5479b1ae5fd4af221e4b5a3111f62bf01a2795d9c5c20fa96644",
  "darwin-amd64": "3b5324ac4fd38ac60a49823b4051ff42ff7eb70144f1e9741fed1d14bc4fdb4e",
  "darwin-arm64": "cbb47d938a8d18eb5f79cb33663b2cecdee0c8ac0bf562ebcfca903df5f0802f",
};

export interface InstallOptions {
  version?: string;
  /** Where releases are downloaded from (tests serve one on 127.0.0.1). */
  baseUrl?: string;
  checksums?: Readonly<Record<string, string>>;
}

/** Installs kubeconform into the runner's tool cache (once per runner) and returns the binary's path. */
export async function installKubeconform(options: InstallOptions = {}): Promise<string> {
  const version = options.version ?? KUBECONFORM_VERSION;
  const checksums = options.checksums ?? KUBECONFORM_SHA256;
  const cached = tc.find("kubeconform", version);
  if (cached) return path.join(cached, "kubeconform");
  const platform = `${process.platform === "darwin" ? "darwin" : process.platform}-${os.arch() === "arm64" ? "arm64" : os.arch() === "x64" ? "amd64" : os.arch()}`;
  const pinned = checksums[platform];
  if (!pinned)
    throw new Error(
      `no pinned SHA-256 for kubeconform ${version} on ${platform}: install kubeconform on the runner yourself (on PATH, the CLI with --engine both) or leave the input kubeconform off`,
    );
  const url = `${options.baseUrl ?? "https://github.com/yannh/kubeconform/releases/download"}/v${version}/kubeconform-${platform}.tar.gz`;
  const archive = await tc.downloadTool(url);
  const digest = crypto.createHash("sha256").update(fs.readFileSync(archive)).digest("hex");
  if (digest !== pinned) {
    fs.rmSync(archive, { force: true });
    throw new Error(`the downloaded ${url} has SHA-256 ${digest}, which is not the pinned ${pinned}: not installed`);
  }
  const dir = await tc.extractTar(archive);
  const installed = await tc.cacheDir(dir, "kubeconform", version);
  return path.join(installed, "kubeconform");
}
