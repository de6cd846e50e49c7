import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Manifest } from "../manifest/manifest.js";
import type { Finding } from "../core/finding.js";
import { findingAt } from "./findings.js";

export type Engine = "builtin" | "kubeconform" | "both";

/** kubeconform's `-output json` document. */
export interface KubeconformOutput {
  resources?: KubeconformResource[];
}

export interface KubeconformResource {
  filename: string;
  kind: string;
  name: string;
  version: string;
  status: "statusValid" | "statusInvalid" | "statusError" | "statusSkipped" | "statusEmpty";
  msg?: string;
  validationErrors?: { path: string; msg: string }[];
}

export class KubeconformUnavailable extends Error {}

export interface KubeconformOptions {
  binary?: string;
  schemaLocations?: string[];
  kubernetesVersion?: string;
}

/**
 * Validates Kubernetes core kinds with an external kubeconform (strict mode, so unknown fields
 * count). Manifests go in on stdin, one document each, and results come back in the same order;
 * findings carry our own line numbers.
 */
export async function runKubeconform(manifests: Manifest[], options: KubeconformOptions = {}): Promise<Finding[]> {
  const binary = options.binary ?? findOnPath("kubeconform");
  if (!binary) throw new KubeconformUnavailable("--engine kubeconform needs a kubeconform binary on PATH or given with --kubeconform PATH");
  const args = ["-output", "json", "-strict", "-summary=false"];
  if (options.kubernetesVersion) args.push("-kubernetes-version", options.kubernetesVersion);
  for (const location of options.schemaLocations ?? []) args.push("-schema-location", location);
  if (options.schemaLocations?.length) args.unshift("-schema-location", "default");
  args.push("-");
  const input = manifests.map((m) => JSON.stringify(m.object)).join("\n---\n") + "\n";
  const stdout = await run(binary, args, input);
  return findingsFromKubeconform(JSON.parse(stdout) as KubeconformOutput, manifests);
}

/** Maps kubeconform results back to the manifests they came from, in input order. */
export function findingsFromKubeconform(output: KubeconformOutput, manifests: Manifest[]): Finding[] {
  const pending = [...manifests];
  const findings: Finding[] = [];
  for (const r of output.resources ?? []) {
    const index = pending.findIndex((m) => m.kind === r.kind && (m.name ?? "") === r.name && m.apiVersion === r.version);
    if (index < 0) continue;
    const [m] = pending.splice(index, 1);
    if (r.status === "statusInvalid") {
      const errors = r.validationErrors?.length ? r.validationErrors : [{ path: "", msg: r.msg ?? "invalid" }];
      for (const e of errors) {
        const unknown = /additional ?propert(?:y|ies) '([^']+)'/i.exec(e.msg);
        let pointer = normalizePath(e.path);
        // kubeconform names the unknown field in the message and points at its parent.
        if (unknown && !pointer.endsWith(`/${unknown[1]}`)) pointer += `/${unknown[1]}`;
        findings.push(findingAt(m, pointer, unknown ? "schema/unknown-field" : "schema/kubeconform", "error", `kubeconform: ${e.msg}`));
      }
    } else if (r.status === "statusError") {
      const missing = /could not find schema/i.test(r.msg ?? "");
      findings.push(
        findingAt(m, "/kind", missing ? "schema/missing" : "schema/kubeconform", missing ? "warning" : "error", `kubeconform: ${r.msg ?? "error"}`),
      );
    }
  }
  return findings;
}

/** kubeconform prints JSON pointers; older versions print dotted paths. */
function normalizePath(p: string): string {
  if (p === "" || p.startsWith("/")) return p;
  return (
    "/" +
    p
      .replace(/\[(\d+)\]/g, ".$1")
      .split(".")
      .filter(Boolean)
      .join("/")
  );
}

function run(binary: string, args: string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", (err) => reject(new KubeconformUnavailable(`cannot run ${binary}: ${err.message}`)));
    child.on("close", (code) => {
      // kubeconform exits 1 when a resource is invalid; only missing output is a failure.
      if (stdout.trim().startsWith("{")) resolve(stdout);
      else reject(new Error(`kubeconform exited ${code}: ${stderr.trim().slice(-2000)}`));
    });
    child.stdin.end(input);
  });
}

export function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
