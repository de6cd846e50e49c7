import { groupOf, type Manifest } from "../../manifest/manifest.js";
import { contribFunctionName, packageVersion } from "../../manifest/package-ref.js";
import type { Finding } from "../../core/finding.js";
import { gvkOf } from "../schemas/types.js";
import { isLegacyResourcesMode } from "./composition.js";
import { asArray, asObject, asString, FindingSink, ptr, type RuleContext } from "./context.js";
import { AMBIGUOUS_BOOLEAN, embeddedYaml11 } from "../yaml11.js";
import { hasPlaceholderPackage } from "../render-config.js";

/** function/*: Function packages are pinned, and each step's input fits its function. */

interface InputType {
  group: string;
  kind: string;
}

/** The input types of the functions composition-ci knows, by package name (registry, org and tag ignored). */
const KNOWN_INPUTS: Record<string, InputType> = {
  "function-patch-and-transform": { group: "pt.fn.crossplane.io", kind: "Resources" },
  "function-go-templating": { group: "gotemplating.fn.crossplane.io", kind: "GoTemplate" },
  "function-auto-ready": { group: "autoready.fn.crossplane.io", kind: "Input" },
};

const SEMVER = /^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

export function functionRules(ctx: RuleContext): Finding[] {
  const sink = new FindingSink();
  for (const fn of ctx.index.functions.values()) sink.guard(fn, () => checkPackage(fn, sink));
  for (const composition of ctx.index.compositions) {
    if (isLegacyResourcesMode(composition.object)) continue;
    sink.guard(composition, () =>
      asArray(asObject(composition.object.spec)?.pipeline).forEach((raw, i) => {
        const step = asObject(raw);
        if (step && asObject(step.input)) checkInput(composition, step, i, ctx, sink);
      }),
    );
  }
  return sink.findings;
}

function checkPackage(fn: Manifest, sink: FindingSink): void {
  const pkg = asString(asObject(fn.object.spec)?.package);
  if (!pkg || hasPlaceholderPackage(fn)) return;
  const { tag, digest } = packageVersion(pkg);
  if (digest) return;
  const say = (why: string) =>
    sink.add(
      fn,
      "/spec/package",
      "function/package-unpinned",
      "warning",
      `${pkg} ${why}; pin a version tag (v1.2.3) or a digest (@sha256:…) so every install runs the same code`,
    );
  if (!tag) say("has no tag, so it resolves to whatever the registry calls latest");
  else if (tag === "latest") say("uses the tag latest");
  else if (!SEMVER.test(tag)) say(`uses the floating tag ${tag}`);
}

/**
 * The function a step runs, by its package's name, when it is one whose input composition-ci
 * knows: crossplane-contrib's or Upbound's build (or the config's builtin). A fork published
 * elsewhere under the same name (a conditional patch-and-transform) has an input type of its own.
 */
function functionPackage(name: string, ctx: RuleContext): string | undefined {
  const pkg = asString(asObject(ctx.index.functions.get(name)?.object.spec)?.package);
  if (pkg) return contribFunctionName(pkg);
  return ctx.config.functions[name]?.builtin;
}

/** Whether a step's function is the one a built-in input schema describes (never a fork's input). */
function ownsBuiltinInput(pkg: string | undefined, group: string): boolean {
  return Object.entries(KNOWN_INPUTS).some(([fn, input]) => input.group === group && fn === pkg);
}

function checkInput(composition: Manifest, step: Record<string, unknown>, i: number, ctx: RuleContext, sink: FindingSink): void {
  const input = asObject(step.input)!;
  const apiVersion = asString(input.apiVersion);
  const kind = asString(input.kind);
  if (!apiVersion || !kind) return; // composition/pipeline says so
  const at = ptr("spec", "pipeline", i, "input");
  const fnName = asString(asObject(step.functionRef)?.name) ?? "";
  const label = `input of step "${asString(step.step) ?? i}"`;
  const pkg = functionPackage(fnName, ctx);
  const expected = pkg ? KNOWN_INPUTS[pkg] : undefined;
  if (expected && (groupOf(apiVersion) !== expected.group || kind !== expected.kind)) {
    // The function decodes its input into its own Go type and never compares apiVersion or kind:
    // another group works, so it is only worth a word.
    sink.add(
      composition,
      at + "/kind",
      "function/input-invalid",
      "warning",
      `${label}: ${pkg} takes a ${expected.group} ${expected.kind}, not ${apiVersion} ${kind}; it decodes the input as its own type anyway`,
    );
    return;
  }
  const entry = ctx.registry.get(gvkOf(apiVersion, kind), composition.file);
  if (!entry?.schema) return;
  if (entry.source === "builtin" && !ownsBuiltinInput(pkg, groupOf(apiVersion))) return; // a fork's input: its own schema, or none
  const read = embeddedYaml11(composition, at, input, ctx.engine.validateObject(input, entry), (o) => ctx.engine.validateObject(o, entry), ctx.yaml11);
  for (const f of read.findings) sink.add(composition, at + f.pointer, AMBIGUOUS_BOOLEAN, "warning", `${label}: ${f.message}`);
  // A function decodes its input (json.Unmarshal into its Go type), no API server admits it: a
  // generated CRD is often stricter than the type (a RawExtension is any value), so what the
  // schema refuses is a warning; what the function itself refuses shows when it renders.
  for (const v of read.violations) {
    sink.add(
      composition,
      at + v.pointer,
      "function/input-invalid",
      v.severity === "info" ? "info" : "warning",
      `${label} (${apiVersion} ${kind}): ${v.message}`,
    );
  }
}
