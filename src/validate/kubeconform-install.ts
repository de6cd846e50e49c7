import os from "node:os";
import path from "node:path";
import * as tc from "@actions/tool-cache";

/** The kubeconform release the Action installs (input `kubeconform: true`). */
export const KUBECONFORM_VERSION = "0.6.7";

/** Installs kubeconform into the runner's tool cache (once per runner) and returns the binary's path. */
export async function installKubeconform(version = KUBECONFORM_VERSION): Promise<string> {
  const binary = process.platform === "win32" ? "kubeconform.exe" : "kubeconform";
  const cached = tc.find("kubeconform", version);
  if (cached) return path.join(cached, binary);
  const platform = { linux: "linux", darwin: "darwin", win32: "windows" }[process.platform as string] ?? "linux";
  const arch = os.arch() === "arm64" ? "arm64" : "amd64";
  const ext = platform === "windows" ? "zip" : "tar.gz";
  const url = `https://github.com/yannh/kubeconform/releases/download/v${version}/kubeconform-${platform}-${arch}.${ext}`;
  const archive = await tc.downloadTool(url);
  const dir = ext === "zip" ? await tc.extractZip(archive) : await tc.extractTar(archive);
  const installed = await tc.cacheDir(dir, "kubeconform", version);
  return path.join(installed, binary);
}
