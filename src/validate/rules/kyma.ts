import type { JsonObject } from "../../core/json.js";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Manifest } from "../../manifest/manifest.js";
import type { Finding } from "../../core/finding.js";
import { guarded } from "../guard.js";
import { asObject, asString, FindingSink, type RuleContext } from "./context.js";

/**
 * kyma/*: Kyma's buildless serverless Function (serverless.kyma-project.io/v1alpha2), as its CRD
 * and controller check it (kyma-project/serverless components/buildless-serverless api/v1alpha2)
 * and beyond the cluster: the runtime (nodejs22, nodejs24, python312; nodejs20 deprecated; older
 * ones removed by current releases), exactly one of inline and git source, reserved environment
 * names, unique secret mounts, limits at least the requests; the inline dependencies parse
 * (package.json for Node.js); the inline source compiles (Node.js: `node --check`, which parses
 * and never runs; Python: `ast.parse` in python3, where there is one) and defines `main`, as the
 * runtime's server calls it.
 */

const GROUP = "serverless.kyma-project.io";
const SUPPORTED = ["nodejs22", "nodejs24", "python312"];
const DEPRECATED = ["nodejs20"];
const RESERVED_ENVS = ["FUNC_RUNTIME", "FUNC_HANDLER", "FUNC_PORT", "FUNC_HANDLER_SOURCE", "FUNC_HANDLER_DEPENDENCIES", "MOD_NAME", "NODE_PATH", "PYTHONPATH"];
const COMPILE_TIMEOUT_MS = 10_000;

export function kymaRules(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const m of ctx.index.manifests) {
    if (m.group !== GROUP || m.version !== "v1alpha2" || m.kind !== "Function") continue;
    guarded(m, "checking the rules of", out, () => {
      const sink = new FindingSink();
      checkFunction(m, asObject(m.object.spec) ?? {}, sink);
      out.push(...sink.findings);
    });
  }
  return out;
}

function checkFunction(m: Manifest, spec: JsonObject, sink: FindingSink): void {
  const runtime = asString(spec.runtime) ?? "";
  if (DEPRECATED.includes(runtime))
    sink.add(
      m,
      "/spec/runtime",
      "kyma/runtime",
      "warning",
      `runtime ${runtime} is deprecated in Kyma serverless: move to ${SUPPORTED.filter((r) => r.startsWith("nodejs")).join(" or ")}`,
    );
  else if (runtime && !SUPPORTED.includes(runtime)) {
    // A sample written for an older Kyma: the release the cluster runs decides, so a warning.
    sink.add(
      m,
      "/spec/runtime",
      "kyma/runtime",
      "warning",
      `runtime ${runtime} is not one current Kyma serverless runs (${SUPPORTED.join(", ")}; ${DEPRECATED.join(", ")} deprecated); an older release may`,
    );
  }
  const source = asObject(spec.source) ?? {};
  if ((source.inline === undefined) === (source.gitRepository === undefined))
    sink.add(m, "/spec/source", "kyma/source", "error", "Use GitRepository or Inline source: exactly one of spec.source.inline and spec.source.gitRepository");
  const env = Array.isArray(spec.env) ? spec.env.map((e) => asObject(e) ?? {}) : [];
  env.forEach((e, i) => {
    const name = asString(e.name);
    if (name && RESERVED_ENVS.includes(name))
      sink.add(m, `/spec/env/${i}/name`, "kyma/env", "error", `${name} is reserved by the runtime and cannot be used (reserved: ${RESERVED_ENVS.join(", ")})`);
  });
  checkSecretMounts(m, spec, sink);
  checkResources(m, spec, sink);
  const inline = asObject(source.inline);
  if (inline && runtime) checkInline(m, inline, runtime, sink);
}

function checkSecretMounts(m: Manifest, spec: JsonObject, sink: FindingSink): void {
  const mounts = Array.isArray(spec.secretMounts) ? spec.secretMounts.map((s) => asObject(s) ?? {}) : [];
  const seen = new Map<string, number>();
  mounts.forEach((s, i) => {
    for (const [field, value] of [
      ["secretName", s.secretName],
      ["mountPath", s.mountPath],
    ] as const) {
      if (typeof value !== "string") continue;
      const key = `${field}\u0000${value}`;
      if (seen.has(key))
        sink.add(
          m,
          `/spec/secretMounts/${i}/${field}`,
          "kyma/secret-mounts",
          "error",
          `${field} "${value}" is used by secretMounts[${seen.get(key)}] too: each secret and each path is mounted once`,
        );
      else seen.set(key, i);
    }
  });
}

/** limits below requests: the Deployment the controller makes is refused. */
function checkResources(m: Manifest, spec: JsonObject, sink: FindingSink): void {
  for (const part of ["function", "build"]) {
    const resources = asObject(asObject(asObject(spec.resourceConfiguration)?.[part])?.resources);
    const [requests, limits] = [asObject(resources?.requests), asObject(resources?.limits)];
    if (!requests || !limits) continue;
    for (const name of ["cpu", "memory"]) {
      const [r, l] = [quantity(requests[name]), quantity(limits[name])];
      if (r !== undefined && l !== undefined && l < r) {
        sink.add(
          m,
          `/spec/resourceConfiguration/${part}/resources/limits/${name}`,
          "kyma/resources",
          "error",
          `the ${name} limit ${String(limits[name])} is below the request ${String(requests[name])}: the Function's Deployment would be refused`,
        );
      }
    }
  }
}

const SUFFIXES: Record<string, number> = { m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };

function quantity(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v !== "string") return undefined;
  const m = /^(\d+(?:\.\d+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(v.trim());
  return m ? Number(m[1]) * (m[2] ? SUFFIXES[m[2]]! : 1) : undefined;
}

function checkInline(m: Manifest, inline: JsonObject, runtime: string, sink: FindingSink): void {
  const source = asString(inline.source);
  const dependencies = asString(inline.dependencies);
  const node = runtime.startsWith("nodejs");
  if (node && dependencies?.trim()) {
    try {
      JSON.parse(dependencies);
    } catch (err) {
      sink.add(
        m,
        "/spec/source/inline/dependencies",
        "kyma/dependencies",
        "error",
        `the inline dependencies are not a package.json: ${(err as Error).message}`,
      );
    }
  }
  if (!source?.trim()) return;
  const at = "/spec/source/inline/source";
  const compiled = node ? checkNode(source) : runtime.startsWith("python") ? checkPython(source) : undefined;
  if (compiled?.error)
    sink.add(
      m,
      at,
      "kyma/source-syntax",
      "error",
      `the inline ${node ? "JavaScript" : "Python"} does not compile${compiled.line ? ` (line ${compiled.line} of the source)` : ""}: ${compiled.error}`,
    );
  else if (compiled?.unchecked) sink.add(m, at, "kyma/source-syntax", "info", `the inline Python was not compiled: ${compiled.unchecked}`);
  const main = node
    ? /\bmodule\.exports\b[\s\S]*\bmain\b|\bexports\.main\s*=|\bexport\s+(?:async\s+)?function\s+main\b|\bexport\s+(?:const|let|var)\s+main\b|\bexport\s*\{[^}]*\bmain\b|\bexport\s+default\b[\s\S]*\bmain\b/
    : /^(?:async\s+)?def\s+main\s*\(/m;
  if (!compiled?.error && !main.test(source))
    sink.add(
      m,
      at,
      "kyma/handler",
      "error",
      node
        ? "the inline source exports no main: the Node.js runtime calls module.exports.main (or an exported main)"
        : "the inline source defines no main: the Python runtime calls def main(event, context)",
    );
}

interface Compiled {
  error?: string;
  line?: number;
  unchecked?: string;
}

/** `node --check` on the source as a file (an ES module when it imports or exports): parsed, never run. */
function checkNode(source: string): Compiled {
  const esm = /^\s*(?:import\s[\s\S]*?from\s|import\s*['"]|export\s)/m.test(source);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-kyma-"));
  try {
    const file = path.join(dir, esm ? "handler.mjs" : "handler.cjs");
    fs.writeFileSync(file, source);
    const r = spawnSync(process.execPath, ["--check", file], { encoding: "utf8", timeout: COMPILE_TIMEOUT_MS, env: { PATH: process.env.PATH ?? "" } });
    if (r.status === 0) return {};
    if (r.error || r.status === null) return { unchecked: "node --check did not finish" };
    const line = new RegExp(`${escapeRegExp(file)}:(\\d+)`).exec(r.stderr)?.[1];
    const message = /^(SyntaxError: .*)$/m.exec(r.stderr)?.[1] ?? r.stderr.trim().split("\n").at(-1) ?? "a syntax error";
    return { error: message, ...(line ? { line: Number(line) } : {}) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** python3's ast.parse on stdin: parsed, never run; where there is no python3, said. */
function checkPython(source: string): Compiled {
  const script = "import ast,sys\ntry:\n ast.parse(sys.stdin.read())\nexcept SyntaxError as e:\n print(f'{e.lineno}\\t{e.msg}'); sys.exit(1)";
  const r = spawnSync("python3", ["-I", "-c", script], { input: source, encoding: "utf8", timeout: COMPILE_TIMEOUT_MS, env: { PATH: process.env.PATH ?? "" } });
  if (r.error) return { unchecked: "python3 is not on this machine" };
  if (r.status === 0) return {};
  const [line, message] = r.stdout.trim().split("\t");
  return message ? { error: message, line: Number(line) } : { unchecked: "python3 did not finish" };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
