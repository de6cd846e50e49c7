// render/: Crossplane and OAM rendering as their controllers render, and the built-in composition functions.
import type { Config } from "../config/config.js";
import type { Manifest } from "../manifest/manifest.js";
import { packageVersion } from "../manifest/package-ref.js";
import type { Finding } from "../core/finding.js";
import { findingAt } from "../validate/findings.js";
import { RUNTIME_ANNOTATION } from "../validate/render-config.js";
import type { JsonObject } from "../core/json.js";
import { builtinFor } from "./runner/builtin.js";
import type { RenderedSource } from "../rendered/source.js";

/** A Function a change moves to another package version while it would run built in. */
export interface VersionMove {
  name: string;
  function: Manifest;
  from: string;
  to: string;
}

export function builtinVersionMoves(base: readonly Manifest[], head: readonly Manifest[], config: Pick<Config, "functions">): VersionMove[] {
  const before = functionsByName(base);
  const out: VersionMove[] = [];
  for (const [name, fn] of functionsByName(head)) {
    const was = before.get(name);
    const pkg = packageOf(fn);
    if (!was || pkg === undefined || packageOf(was) === pkg || !runsBuiltIn(name, fn, config)) continue;
    out.push({ name, function: fn, from: versionText(packageOf(was) ?? ""), to: versionText(pkg) });
  }
  return out;
}

/** What ran for a moved function on one side of the diff (see RuntimeOptions.realPackages). */
export type PackageOutcome = { ran?: boolean; why?: string };

/**
 * A built-in models one version of its function. When a change moves a Function's package to
 * another version and the function runs built in, the rendered diff cannot show what the new
 * version does differently: said, for the sources that use the function, never passed over as
 * "unchanged". Where both versions' real packages ran (trusted, pulled), the diff is theirs: said too.
 */
export function builtinVersionChanges(
  moves: readonly VersionMove[],
  sources: readonly RenderedSource[],
  outcomes: { base: Map<string, PackageOutcome>; head: Map<string, PackageOutcome> },
): Finding[] {
  return moves.map(({ name, function: fn, from, to }) => {
    const users = sources.filter((s) => usesFunction(s, name)).map((s) => `${s.source.kind} ${s.source.name ?? ""}`);
    const affected = users.length
      ? ` for the ${users.length === 1 ? "source that uses" : `${users.length} sources that use`} it (${users.slice(0, 3).join(", ")}${users.length > 3 ? `, and ${users.length - 3} more` : ""})`
      : "";
    const [base, head] = [outcomes.base.get(name) ?? {}, outcomes.head.get(name) ?? {}];
    if (base.ran === true && head.ran === true) {
      return findingAt(
        fn,
        "/spec/package",
        "render/builtin-version",
        "info",
        `Function ${name} moves from ${from} to ${to}: the rendered diff${affected} comes from the real packages of both versions, not the built-in`,
      );
    }
    const why = head.why ?? base.why;
    return findingAt(
      fn,
      "/spec/package",
      "render/builtin-version",
      "warning",
      `Function ${name} moves from ${from} to ${to}, and composition-ci renders it with its built-in model of the function: the rendered diff${affected} shows what the rest of the change does, not what the new version changes${why ? ` (its package was not run: it ${why})` : ""}. ` +
        "Trusting the package (functions.trusted in the base branch's .composition-ci.yaml) with its cache at hand renders both versions' real packages",
    );
  });
}

function functionsByName(manifests: readonly Manifest[]): Map<string, Manifest> {
  const out = new Map<string, Manifest>();
  for (const m of manifests) if (m.kind === "Function" && m.group === "pkg.crossplane.io" && m.name) out.set(m.name, m);
  return out;
}

function packageOf(m: Manifest): string | undefined {
  const pkg = (m.object.spec as JsonObject | undefined)?.package;
  return typeof pkg === "string" ? pkg.trim() : undefined;
}

function versionText(pkg: string): string {
  const v = packageVersion(pkg);
  return [v.tag, v.digest].filter(Boolean).join("@") || "no tag";
}

/** The runtime choice of src/render/runner/select.ts, as far as it decides built in or not. */
function runsBuiltIn(name: string, fn: Manifest, config: Pick<Config, "functions">): boolean {
  if (config.functions[name]) return false;
  const annotations = ((fn.object.metadata as JsonObject | undefined)?.annotations ?? {}) as Record<string, unknown>;
  if (annotations[RUNTIME_ANNOTATION] === "Docker") return false;
  return builtinFor(packageOf(fn) ?? "") !== undefined;
}

function usesFunction(s: RenderedSource, name: string): boolean {
  const composition = (s as RenderedSource & { composition?: Manifest }).composition;
  const pipeline = (composition?.object.spec as JsonObject | undefined)?.pipeline;
  return Array.isArray(pipeline) && pipeline.some((step) => ((step as JsonObject).functionRef as JsonObject | undefined)?.name === name);
}
