import type { Finding } from "../../core/finding.js";
import { compositionRules, PIPELINE_SUPERSEDES } from "./composition.js";
import type { RuleContext, RuleFamily } from "./context.js";
import { functionRules } from "./function.js";
import { knativeRules } from "./knative.js";
import { kymaRules } from "./kyma.js";
import { porchRules } from "./porch.js";
import { oamRules } from "./oam.js";
import { velaRules } from "./vela.js";
import { xrRules } from "./xr.js";
import { xrdRules } from "./xrd.js";

export type { RuleContext } from "./context.js";

const FAMILIES: RuleFamily[] = [compositionRules, functionRules, xrdRules, xrRules, oamRules, velaRules, knativeRules, kymaRules, porchRules];

/** Schema findings a semantic finding at the same spot replaces, because it says the same thing better. */
const SUPERSEDES: Record<string, string[]> = {
  "composition/pipeline": PIPELINE_SUPERSEDES,
  // A runtime an older Kyma release ran: the release the cluster runs decides, so the CRD's enum is no error.
  "kyma/runtime": ["schema/enum"],
};
/**
 * Schema findings anywhere on the same object that a semantic finding makes moot: a legacy
 * `mode: Resources` Composition breaks the v2 schema's pipeline rule and field list, which says
 * nothing mode-resources does not say better.
 */
const SUPERSEDES_IN_OBJECT: Record<string, string[]> = { "composition/mode-resources": ["schema/cel", "schema/unknown-field"] };

/**
 * Runs every semantic rule once over the index. `functionFamilies` are the rules a built-in
 * function's own room keeps about its input (`pt/*`, render/functions/patch-and-transform/rules.ts),
 * given by whoever runs the rules: they run after composition and before function, since a base
 * is decided by its own kind's schema before the function input's (validate/yaml11.ts).
 */
export function runRules(ctx: RuleContext, functionFamilies: readonly RuleFamily[] = []): Finding[] {
  const [composition, ...rest] = FAMILIES;
  return [composition!, ...functionFamilies, ...rest].flatMap((family) => family(ctx));
}

/** Drops the schema findings that a semantic finding at the same file, line and column supersedes. */
export function dropSuperseded(schemaFindings: Finding[], ruleFindings: Finding[]): Finding[] {
  const covered = new Set<string>();
  const object = (f: Finding) => `${f.file}|${f.apiVersion}|${f.kind}|${f.name}`;
  for (const f of ruleFindings) {
    for (const rule of SUPERSEDES[f.rule] ?? []) covered.add(`${f.file}:${f.line}:${f.column}:${rule}`);
    for (const rule of SUPERSEDES_IN_OBJECT[f.rule] ?? []) covered.add(`${object(f)}|${rule}`);
  }
  if (covered.size === 0) return schemaFindings;
  return schemaFindings.filter((f) => !covered.has(`${f.file}:${f.line}:${f.column}:${f.rule}`) && !covered.has(`${object(f)}|${f.rule}`));
}
