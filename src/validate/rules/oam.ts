import { groupOf, type Manifest } from "../../manifest/manifest.js";
import type { Finding } from "../../core/finding.js";
import { schemaAtPath } from "../schema-path.js";
import { gvkOf, type OpenAPISchema } from "../schemas/types.js";
import { asArray, asObject, asString, FindingSink, ptr, type RuleContext } from "./context.js";
import { appliesTo, definitionGroup, dataDependencyCycles } from "./oam-semantics.js";
import type { RepoIndex } from "../repo-index.js";
import { resolveTrait, resolveWorkload, type Kind, type Resolved } from "../oam-definitions.js";

/**
 * oam/*: OAM v1alpha2 ApplicationConfigurations checked the way crossplane/oam-kubernetes-runtime
 * admits and runs them: components exist, parameters fit, traits apply to their workloads,
 * data dependencies resolve and do not loop.
 */

export function oamRules(ctx: RuleContext): Finding[] {
  const sink = new FindingSink();
  for (const components of ctx.index.components.values()) {
    for (const component of components) {
      if (component.version === "v1alpha2") sink.guard(component, () => checkComponent(component, ctx, sink));
    }
  }
  for (const ac of ctx.index.appConfigs) {
    if (ac.version === "v1alpha2") sink.guard(ac, () => checkAppConfig(ac, ctx, sink));
  }
  return sink.findings;
}

function installed(name: string | undefined, ctx: RuleContext): boolean {
  return name !== undefined && ctx.config.clusterDefinitions.includes(name);
}

function componentWorkload(component: Manifest, ctx: RuleContext): Resolved | undefined {
  const workload = asObject(asObject(component.object.spec)?.workload);
  return workload && resolveWorkload(workload, ctx.index);
}

function schemaOf(gvk: Kind | undefined, ctx: RuleContext): OpenAPISchema | undefined {
  if (!gvk) return undefined;
  return ctx.registry.get(gvkOf(gvk.apiVersion, gvk.kind))?.schema;
}

function checkComponent(component: Manifest, ctx: RuleContext, sink: FindingSink): void {
  const workload = asObject(asObject(component.object.spec)?.workload);
  if (!workload) return;
  const resolved = componentWorkload(component, ctx)!;
  const typed = asString(workload.type);
  if (!typed && (!asString(workload.apiVersion) || !asString(workload.kind))) {
    sink.add(
      component,
      "/spec/workload",
      "oam/definition-missing",
      "error",
      "the workload has neither apiVersion and kind nor a type naming a WorkloadDefinition",
    );
    return;
  }
  if (!resolved.definition && !installed(resolved.definitionName, ctx)) {
    if (typed) {
      const message = `no WorkloadDefinition "${typed}" in the repository: the admission webhook cannot turn this workload type into a kind`;
      sink.addMissing(
        ctx.index,
        component,
        "/spec/workload/type",
        { group: "core.oam.dev", kind: "WorkloadDefinition", name: typed },
        { rule: "oam/definition-missing", severity: "error", message },
      );
    } else {
      sink.add(
        component,
        "/spec/workload/kind",
        "oam/definition-missing",
        "warning",
        `no WorkloadDefinition "${resolved.definitionName ?? ""}" for ${String(workload.apiVersion)} ${String(workload.kind)} in the repository; the runtime falls back to a default definition (list it under clusterDefinitions if the cluster has it)`,
      );
    }
  }
  const schema = schemaOf(resolved.gvk, ctx);
  if (!schema) return;
  asArray(asObject(component.object.spec)?.parameters).forEach((raw, i) => {
    const parameter = asObject(raw) ?? {};
    asArray(parameter.fieldPaths).forEach((fp, j) => {
      if (typeof fp !== "string") return;
      const result = schemaAtPath(schema, fp);
      if (result.status !== "missing" && result.status !== "invalid") return;
      sink.add(
        component,
        ptr("spec", "parameters", i, "fieldPaths", j),
        "oam/parameter-field-path",
        "error",
        `parameter "${String(parameter.name)}" sets ${fp}, which the schema of ${resolved.gvk!.apiVersion} ${resolved.gvk!.kind} does not have: ${result.message}`,
      );
    });
  });
}

function checkAppConfig(ac: Manifest, ctx: RuleContext, sink: FindingSink): void {
  const entries = asArray(asObject(ac.object.spec)?.components).map((c) => asObject(c) ?? {});
  entries.forEach((entry, i) => checkEntry(ac, entry, i, ctx, sink));
  checkDataDependencies(ac, entries, sink);
}

function checkEntry(ac: Manifest, entry: Record<string, unknown>, i: number, ctx: RuleContext, sink: FindingSink): void {
  const at = ptr("spec", "components", i);
  const { name, component } = componentOfEntry(ac, entry, at, ctx.index, sink);
  if (!name) return;
  if (component) checkParameters(ac, entry, at, component, sink);
  const workload = component ? componentWorkload(component, ctx) : undefined;
  checkTraits(ac, entry, at, name, workload, ctx, sink);
}

/** The Component name of an entry: `componentName`, or `revisionName` without its `-v<N>` suffix. */
export function entryComponentName(entry: Record<string, unknown>): string | undefined {
  return asString(entry.componentName) ?? asString(entry.revisionName)?.replace(/-v\d+$/, "");
}

/**
 * The Component an ApplicationConfiguration entry names (`componentName`, or `revisionName`
 * without its `-v<N>` suffix), reporting a missing one or both names given.
 */
export function componentOfEntry(
  ac: Manifest,
  entry: Record<string, unknown>,
  at: string,
  index: RepoIndex,
  sink: FindingSink,
): { name?: string; component?: Manifest } {
  const componentName = asString(entry.componentName);
  const revisionName = asString(entry.revisionName);
  if (componentName && revisionName) {
    sink.add(ac, at, "oam/component-missing", "error", "componentName and revisionName are mutually exclusive, you can only specify one of them");
  }
  const name = entryComponentName(entry);
  if (!name) return {};
  const component = index.component(name, ac);
  if (!component) {
    const field = componentName ? "componentName" : "revisionName";
    sink.add(ac, `${at}/${field}`, "oam/component-missing", "error", `Component "${name}" is not in the repository`);
  }
  return { name, component };
}

/** Parameter values against the Component's parameters, with the runtime's own wording. */
export function checkParameters(ac: Manifest, entry: Record<string, unknown>, at: string, component: Manifest, sink: FindingSink): void {
  const declared = asArray(asObject(component.object.spec)?.parameters).map((p) => asObject(p) ?? {});
  const names = new Set(declared.map((p) => asString(p.name)));
  const given = new Set<string>();
  asArray(entry.parameterValues).forEach((raw, j) => {
    const name = asString(asObject(raw)?.name);
    if (name === undefined) return;
    given.add(name);
    if (!names.has(name)) sink.add(ac, `${at}/parameterValues/${j}/name`, "oam/parameter-undeclared", "error", `unsupported parameter "${name}"`);
  });
  for (const p of declared) {
    const name = asString(p.name);
    if (name && p.required === true && !given.has(name)) sink.add(ac, at, "oam/parameter-required", "error", `required parameter "${name}" not specified`);
  }
}

function checkTraits(
  ac: Manifest,
  entry: Record<string, unknown>,
  at: string,
  componentName: string,
  workload: Resolved | undefined,
  ctx: RuleContext,
  sink: FindingSink,
): void {
  const seen = new Map<string, number>();
  asArray(entry.traits).forEach((raw, j) => {
    const trait = asObject(asObject(raw)?.trait);
    if (!trait) return;
    const tAt = `${at}/traits/${j}/trait`;
    const resolved = resolveTrait(trait, ctx.index);
    const key = asString(trait.name) ?? (resolved.gvk ? `${groupOf(resolved.gvk.apiVersion)}/${resolved.gvk.kind}` : undefined);
    if (!key) {
      sink.add(ac, tAt, "oam/definition-missing", "error", "the trait has neither apiVersion and kind nor a name naming a TraitDefinition");
      return;
    }
    if (seen.has(key)) {
      sink.add(
        ac,
        tAt,
        "oam/duplicate-trait",
        "error",
        `component "${componentName}" has two ${resolved.gvk?.kind ?? key} traits (traits[${seen.get(key)}] and traits[${j}])`,
      );
    } else seen.set(key, j);
    if (!resolved.definition) {
      if (!installed(resolved.definitionName, ctx)) traitDefinitionMissing(ac, tAt, trait, resolved, sink, ctx.index);
      return;
    }
    checkApplicable(ac, tAt, componentName, resolved, workload, sink);
    checkWorkloadRef(ac, tAt, trait, resolved, ctx, sink);
  });
}

function traitDefinitionMissing(ac: Manifest, at: string, trait: Record<string, unknown>, resolved: Resolved, sink: FindingSink, index: RepoIndex): void {
  if (typeof trait.name === "string") {
    const message = `no TraitDefinition "${trait.name}" in the repository: the admission webhook cannot turn this trait name into a kind`;
    sink.addMissing(
      index,
      ac,
      `${at}/name`,
      { group: "core.oam.dev", kind: "TraitDefinition", name: trait.name },
      { rule: "oam/definition-missing", severity: "error", message },
    );
  } else {
    sink.add(
      ac,
      `${at}/kind`,
      "oam/definition-missing",
      "warning",
      `no TraitDefinition "${resolved.definitionName ?? ""}" for ${resolved.gvk?.apiVersion ?? ""} ${resolved.gvk?.kind ?? ""} in the repository; the runtime falls back to a default definition (list it under clusterDefinitions if the cluster has it)`,
    );
  }
}

function checkApplicable(ac: Manifest, at: string, componentName: string, trait: Resolved, workload: Resolved | undefined, sink: FindingSink): void {
  const appliable = asArray(asObject(trait.definition!.object.spec)?.appliesToWorkloads).filter((s): s is string => typeof s === "string");
  if (!workload?.definitionRef && !workload?.definition) return;
  const names = [workload.definitionRef, workload.definition?.name].filter((n): n is string => !!n);
  if (appliesTo(appliable, names, definitionGroup(workload.definitionRef))) return;
  const w = workload.definition?.name ?? workload.definitionRef ?? "";
  sink.add(
    ac,
    at,
    "oam/trait-not-applicable",
    "error",
    `the trait "${trait.definition!.name ?? ""}" cannot apply to workload "${w}" of component "${componentName}" (appliable: [${appliable.map((a) => JSON.stringify(a)).join(", ")}])`,
  );
}

function checkWorkloadRef(ac: Manifest, at: string, trait: Record<string, unknown>, resolved: Resolved, ctx: RuleContext, sink: FindingSink): void {
  if (asObject(trait.spec)?.workloadRef === undefined) return;
  if (asString(asObject(resolved.definition?.object.spec)?.workloadRefPath)) return;
  const schema = schemaOf(resolved.gvk, ctx);
  if (!schema) return;
  const result = schemaAtPath(schema, "spec.workloadRef");
  if (result.status !== "missing") return;
  sink.add(
    ac,
    `${at}/spec/workloadRef`,
    "oam/workload-ref-path",
    "error",
    `the trait sets spec.workloadRef, but TraitDefinition "${resolved.definition?.name ?? ""}" has no workloadRefPath and the schema of ${resolved.gvk!.kind} has no such field: the API server would reject it`,
  );
}

/** dataOutputName references that resolve to nothing, and dependency cycles (none of them ever starts). */
export function checkDataDependencies(ac: Manifest, entries: Record<string, unknown>[], sink: FindingSink): void {
  const producers = new Map<string, string>();
  const holders: { node: string; holder: Record<string, unknown>; at: string }[] = [];
  entries.forEach((entry, i) => {
    const name = asString(entry.componentName) ?? asString(entry.revisionName) ?? `components[${i}]`;
    holders.push({ node: `component "${name}"`, holder: entry, at: ptr("spec", "components", i) });
    asArray(entry.traits).forEach((t, j) => {
      holders.push({ node: `trait ${j} of component "${name}"`, holder: asObject(t) ?? {}, at: ptr("spec", "components", i, "traits", j) });
    });
  });
  for (const { node, holder } of holders) {
    for (const out of asArray(holder.dataOutputs)) {
      const name = asString(asObject(out)?.name);
      if (name && !producers.has(name)) producers.set(name, node);
    }
  }
  const edges = new Map<string, string[]>();
  const nodeAt = new Map<string, string>();
  for (const { node, holder, at } of holders) {
    nodeAt.set(node, at);
    asArray(holder.dataInputs).forEach((input, k) => {
      const name = asString(asObject(asObject(input)?.valueFrom)?.dataOutputName);
      if (name === undefined) return;
      const producer = producers.get(name);
      if (!producer) {
        sink.add(
          ac,
          `${at}/dataInputs/${k}/valueFrom/dataOutputName`,
          "oam/data-dependency",
          "error",
          `dataOutputName "${name}" names no dataOutputs in this ApplicationConfiguration`,
        );
        return;
      }
      edges.set(node, [...(edges.get(node) ?? []), producer]);
    });
  }
  for (const cycle of dataDependencyCycles(edges)) {
    sink.add(
      ac,
      nodeAt.get(cycle[0]!) ?? "",
      "oam/data-dependency",
      "error",
      `data dependencies form a cycle: ${[...cycle, cycle[0]].join(" → ")}; none of them can ever start`,
    );
  }
}
