import type { JsonObject } from "../../core/json.js";
import type { Finding } from "../../core/finding.js";
import { guarded } from "../guard.js";
import { asObject, asString, FindingSink, type RuleContext } from "./context.js";

/**
 * porch/*: what Porch's controllers refuse to act on (kptdev/porch controllers/packagevariants
 * `validatePackageVariant`, controllers/packagevariantsets `validatePackageVariantSet`): the API
 * server accepts such an object, the controller stalls on it with these messages.
 */

const GROUP = "config.porch.kpt.dev";

export function porchRules(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const m of ctx.index.manifests) {
    if (m.group !== GROUP || (m.kind !== "PackageVariant" && m.kind !== "PackageVariantSet")) continue;
    guarded(m, "checking the rules of", out, () => {
      const sink = new FindingSink();
      const spec = asObject(m.object.spec) ?? {};
      const add = (pointer: string, message: string) =>
        sink.add(
          m,
          pointer,
          m.kind === "PackageVariant" ? "porch/package-variant" : "porch/package-variant-set",
          "error",
          `${message}: the Porch controller stalls on the ${m.kind}`,
        );
      if (m.kind === "PackageVariant") packageVariant(spec, add);
      else packageVariantSet(spec, add);
      out.push(...sink.findings);
    });
  }
  return out;
}

type Add = (pointer: string, message: string) => void;

function packageVariant(spec: JsonObject, add: Add): void {
  const upstream = asObject(spec.upstream);
  if (!upstream) add("/spec", "missing required field spec.upstream");
  else {
    if (!asString(upstream.repo)) add("/spec/upstream", "missing required field spec.upstream.repo");
    if (!asString(upstream.package)) add("/spec/upstream", "missing required field spec.upstream.package");
  }
  const downstream = asObject(spec.downstream);
  if (!downstream) add("/spec", "missing required field spec.downstream");
  else {
    if (!asString(downstream.repo)) add("/spec/downstream", "missing required field spec.downstream.repo");
    if (!asString(downstream.package)) add("/spec/downstream", "missing required field spec.downstream.package");
  }
  policies(spec, "spec", add, "/spec");
  const context = asObject(spec.packageContext);
  for (const key of ["name", "package-path"]) {
    if (asObject(context?.data) && key in asObject(context!.data)!)
      add("/spec/packageContext/data", `spec.packageContext.data must not contain the key "${key}" (Porch sets it)`);
    if (Array.isArray(context?.removeKeys) && context!.removeKeys.includes(key))
      add("/spec/packageContext/removeKeys", `spec.packageContext.removeKeys must not contain the key "${key}"`);
  }
  (Array.isArray(spec.injectors) ? spec.injectors : []).forEach((i, n) => {
    if (!asString(asObject(i)?.name)) add(`/spec/injectors/${n}`, `spec.injectors[${n}].name must not be empty`);
  });
}

/** adoptionPolicy (default adoptNone) and deletionPolicy (default delete): one of two each. */
function policies(spec: JsonObject, field: string, add: Add, pointer: string): void {
  const adoption = spec.adoptionPolicy;
  if (adoption !== undefined && adoption !== "" && adoption !== "adoptNone" && adoption !== "adoptExisting")
    add(`${pointer}/adoptionPolicy`, `${field}.adoptionPolicy can only be "adoptNone" or "adoptExisting"`);
  const deletion = spec.deletionPolicy;
  if (deletion !== undefined && deletion !== "" && deletion !== "orphan" && deletion !== "delete")
    add(`${pointer}/deletionPolicy`, `${field}.deletionPolicy can only be "orphan" or "delete"`);
}

function packageVariantSet(spec: JsonObject, add: Add): void {
  const upstream = asObject(spec.upstream);
  if (!upstream) add("/spec", "spec.upstream is a required field");
  else {
    if (!asString(upstream.package)) add("/spec/upstream", "spec.upstream.package is a required field");
    if (!asString(upstream.repo)) add("/spec/upstream", "spec.upstream.repo is a required field");
    if (!upstream.revision && !asString(upstream.workspaceName))
      add("/spec/upstream", "either spec.upstream.revision or spec.upstream.workspaceName must be specified");
  }
  const targets = Array.isArray(spec.targets) ? spec.targets.map((t) => asObject(t) ?? {}) : [];
  if (!targets.length) add("/spec", "must specify at least one item in spec.targets");
  targets.forEach((t, i) => target(t, i, add));
}

function target(t: JsonObject, i: number, add: Add): void {
  const at = `/spec/targets/${i}`;
  const field = `spec.targets[${i}]`;
  let count = 0;
  if (t.repositories !== undefined && t.repositories !== null) {
    count++;
    const repos = Array.isArray(t.repositories) ? t.repositories.map((r) => asObject(r) ?? {}) : [];
    if (!repos.length) add(`${at}/repositories`, `${field}.repositories must not be an empty list if specified`);
    repos.forEach((r, j) => {
      if (!asString(r.name)) add(`${at}/repositories/${j}`, `${field}.repositories[${j}].name cannot be empty`);
      (Array.isArray(r.packageNames) ? r.packageNames : []).forEach((p, k) => {
        if (!p) add(`${at}/repositories/${j}/packageNames/${k}`, `${field}.repositories[${j}].packageNames[${k}] cannot be empty`);
      });
    });
  }
  if (t.repositorySelector !== undefined && t.repositorySelector !== null) count++;
  const selector = asObject(t.objectSelector);
  if (selector) {
    count++;
    if (!asString(selector.apiVersion)) add(`${at}/objectSelector`, `${field}.objectselector.apiVersion cannot be empty`);
    if (!asString(selector.kind)) add(`${at}/objectSelector`, `${field}.objectselector.kind cannot be empty`);
  }
  if (count !== 1) add(at, `${field} must specify one of \`repositories\`, \`repositorySelector\`, or \`objectSelector\``);
  const template = asObject(t.template);
  if (template) checkTemplate(template, `${field}.template`, `${at}/template`, add);
}

function checkTemplate(template: JsonObject, field: string, at: string, add: Add): void {
  policies(template, field, add, at);
  const downstream = asObject(template.downstream);
  if (downstream?.repo !== undefined && downstream.repoExpr !== undefined)
    add(`${at}/downstream`, `${field} may specify only one of \`downstream.repo\` and \`downstream.repoExpr\``);
  if (downstream?.package !== undefined && downstream.packageExpr !== undefined)
    add(`${at}/downstream`, `${field} may specify only one of \`downstream.package\` and \`downstream.packageExpr\``);
  for (const [key, name] of [
    ["labelExprs", "labelExprs"],
    ["annotationExprs", "annotationExprs"],
  ] as const)
    mapExprs(template[key], `${field}.${name}`, `${at}/${key}`, add);
  mapExprs(asObject(template.packageContext)?.dataExprs, `${field}.packageContext.dataExprs`, `${at}/packageContext/dataExprs`, add);
  (Array.isArray(template.injectors) ? template.injectors.map((i) => asObject(i) ?? {}) : []).forEach((inj, i) => {
    if (inj.name !== undefined && inj.nameExpr !== undefined)
      add(`${at}/injectors/${i}`, `${field}.injectors[${i}] may specify only one of \`name\` and \`nameExpr\``);
    if (inj.name === undefined && inj.nameExpr === undefined)
      add(`${at}/injectors/${i}`, `${field}.injectors[${i}] must specify either \`name\` or \`nameExpr\``);
  });
  const pipeline = asObject(template.pipeline);
  for (const kind of ["validators", "mutators"]) {
    (Array.isArray(pipeline?.[kind]) ? (pipeline![kind] as unknown[]).map((f) => asObject(f) ?? {}) : []).forEach((f, i) => {
      const fAt = `${at}/pipeline/${kind}/${i}`;
      if (!asString(f.image)) add(fAt, `${field}.pipeline.${kind}[${i}].image must not be empty`);
      if ((asString(f.name) ?? "").includes(".")) add(`${fAt}/name`, `${field}.pipeline.${kind}[${i}].name must not contain '.'`);
    });
  }
}

function mapExprs(raw: unknown, field: string, at: string, add: Add): void {
  (Array.isArray(raw) ? raw.map((e) => asObject(e) ?? {}) : []).forEach((e, j) => {
    if (e.key !== undefined && e.keyExpr !== undefined) add(`${at}/${j}`, `${field}[${j}] may specify only one of \`key\` and \`keyExpr\``);
    if (e.value !== undefined && e.valueExpr !== undefined) add(`${at}/${j}`, `${field}[${j}] may specify only one of \`value\` and \`valueExpr\``);
  });
}
