import type { Manifest } from "../../manifest/manifest.js";
import type { Finding } from "../../core/finding.js";
import { AMBIGUOUS_BOOLEAN, embeddedYaml11 } from "../yaml11.js";
import { isKubernetesCoreKind } from "../schemas/kubernetes.js";
import type { SchemaEntry } from "../schemas/registry.js";
import type { OpenAPISchema } from "../schemas/types.js";
import { asArray, asObject, asString, FindingSink, ptr, type RuleContext } from "./context.js";
import { appliesTo, definitionGroup } from "./oam-semantics.js";

/**
 * vela/*: KubeVela (core.oam.dev/v1beta1) Applications: component and trait types have
 * definitions, traits apply to their component's workload and do not conflict, and properties
 * fit the definitions' parameter schemas.
 */

/** Definitions every KubeVela installation has (`vela install`); the config's clusterDefinitions add more. */
export const KUBEVELA_BUILTIN_DEFINITIONS = [
  // component types
  "webservice",
  "worker",
  "task",
  "daemon",
  "cron-task",
  "statefulset",
  "k8s-objects",
  "ref-objects",
  "raw",
  // traits
  "scaler",
  "gateway",
  "expose",
  "labels",
  "annotations",
  "env",
  "sidecar",
  "init-container",
  "storage",
  "affinity",
  "hostalias",
  "cpuscaler",
  "hpa",
  "json-patch",
  "json-merge-patch",
  "command",
  "container-image",
  "container-ports",
  "resource",
  "startup-probe",
  "service-binding",
  "securitycontext",
  "podsecuritycontext",
  "topologyspreadconstraints",
  "k8s-update-strategy",
  "lifecycle",
  "node-affinity",
  "service-account",
  "pure-ingress",
  "ingress",
  "ingress-1-20",
];

interface Workload {
  /** `<plural>.<group>` of the workload kind, when known. */
  resource?: string;
  /** The ComponentDefinition's name. */
  definition: string;
}

interface AppTrait {
  type: string;
  index: number;
  definition?: Manifest;
}

export function velaRules(ctx: RuleContext): Finding[] {
  const sink = new FindingSink();
  const schemas = new ParameterSchemas(ctx, sink);
  for (const app of ctx.index.applications) {
    if (app.version !== "v1beta1") continue;
    sink.guard(app, () =>
      asArray(asObject(app.object.spec)?.components).forEach((raw, i) => {
        const component = asObject(raw);
        if (component) checkComponent(app, component, ptr("spec", "components", i), ctx, schemas, sink);
      }),
    );
  }
  return sink.findings;
}

/** `webservice@v2` names revision 2 of the definition `webservice` (KubeVela's DefinitionRevisions). */
function definitionRef(type: string): { definitionName: string; pinned: boolean } {
  const at = type.lastIndexOf("@");
  return at > 0 ? { definitionName: type.slice(0, at), pinned: true } : { definitionName: type, pinned: false };
}

function known(name: string, ctx: RuleContext): boolean {
  return KUBEVELA_BUILTIN_DEFINITIONS.includes(name) || ctx.config.clusterDefinitions.includes(name);
}

function checkComponent(app: Manifest, component: Record<string, unknown>, at: string, ctx: RuleContext, schemas: ParameterSchemas, sink: FindingSink): void {
  const type = asString(component.type);
  const name = asString(component.name) ?? "";
  if (!type) return;
  const { definitionName, pinned } = definitionRef(type);
  const definition = ctx.index.componentDefinitions.get(definitionName);
  if (!definition && !known(definitionName, ctx)) {
    const message = `no ComponentDefinition "${definitionName}" in the repository (list it under clusterDefinitions if the cluster has it)`;
    sink.addMissing(
      ctx.index,
      app,
      `${at}/type`,
      { group: "core.oam.dev", kind: "ComponentDefinition", name: definitionName },
      { rule: "vela/definition-missing", severity: "warning", message },
    );
  }
  // A pinned revision's parameters are the revision's, which the repository does not hold.
  if (!pinned) schemas.check(app, type, component.properties, `${at}/properties`, `component "${name}"`);
  const workload = definition ? workloadOf(definition, ctx) : undefined;
  const traits: AppTrait[] = [];
  asArray(component.traits).forEach((raw, j) => {
    const trait = asObject(raw) ?? {};
    const traitType = asString(trait.type);
    if (!traitType) return;
    const tAt = `${at}/traits/${j}`;
    const traitRef = definitionRef(traitType);
    const traitDefinition = ctx.index.traitDefinitions.get(traitRef.definitionName);
    if (!traitDefinition && !known(traitRef.definitionName, ctx)) {
      const message = `no TraitDefinition "${traitRef.definitionName}" in the repository (list it under clusterDefinitions if the cluster has it)`;
      sink.addMissing(
        ctx.index,
        app,
        `${tAt}/type`,
        { group: "core.oam.dev", kind: "TraitDefinition", name: traitRef.definitionName },
        { rule: "vela/definition-missing", severity: "warning", message },
      );
    }
    if (!traitRef.pinned) schemas.check(app, traitType, trait.properties, `${tAt}/properties`, `trait "${traitType}" of component "${name}"`);
    if (traitDefinition && workload && !traitRef.pinned) checkApplicable(app, tAt, traitType, traitDefinition, name, type, workload, sink);
    // conflictsWith names definitions, not revisions.
    traits.push({ type: traitRef.definitionName, index: j, definition: traitDefinition });
  });
  checkConflicts(app, at, name, traits, sink);
}

/** The workload a ComponentDefinition makes: `spec.workload.type`, or its `definition` kind as `<plural>.<group>`. */
function workloadOf(definition: Manifest, ctx: RuleContext): Workload | undefined {
  const workload = asObject(asObject(definition.object.spec)?.workload) ?? {};
  const type = asString(workload.type);
  if (type === "autodetects.core.oam.dev") return undefined;
  if (type) return { resource: type, definition: definition.name ?? "" };
  const def = asObject(workload.definition);
  const apiVersion = asString(def?.apiVersion);
  const kind = asString(def?.kind);
  if (!apiVersion || !kind) return { definition: definition.name ?? "" };
  const resource = ctx.index.resourceName(apiVersion, kind, isKubernetesCoreKind(apiVersion, kind));
  return { resource, definition: definition.name ?? "" };
}

function checkApplicable(
  app: Manifest,
  at: string,
  traitType: string,
  traitDefinition: Manifest,
  componentName: string,
  componentType: string,
  workload: Workload,
  sink: FindingSink,
): void {
  const appliable = asArray(asObject(traitDefinition.object.spec)?.appliesToWorkloads).filter((s): s is string => typeof s === "string");
  const names = [workload.resource, workload.definition].filter((n): n is string => !!n);
  if (appliesTo(appliable, names, definitionGroup(workload.resource))) return;
  sink.add(
    app,
    `${at}/type`,
    "vela/trait-not-applicable",
    "info",
    `the trait "${traitType}" does not list component "${componentName}" of type "${componentType}" in appliesToWorkloads (workload ${workload.resource ?? "unknown"}; appliable: [${appliable.map((a) => JSON.stringify(a)).join(", ")}]); ` +
      "KubeVela does not enforce it for Applications (only VelaUX uses it to offer traits)",
  );
}

function checkConflicts(app: Manifest, at: string, componentName: string, traits: AppTrait[], sink: FindingSink): void {
  for (const a of traits) {
    const conflicts = asArray(asObject(a.definition?.object.spec)?.conflictsWith).filter((s): s is string => typeof s === "string");
    if (conflicts.length === 0) continue;
    for (const b of traits) {
      if (b === a) continue;
      const entry = conflicts.find((c) => conflictMatches(c, b));
      if (!entry) continue;
      const [first, second] = a.index < b.index ? [a, b] : [b, a];
      sink.add(
        app,
        `${at}/traits/${second.index}`,
        "vela/trait-conflict",
        "info",
        `traits "${first.type}" and "${second.type}" of component "${componentName}" conflict: TraitDefinition "${a.type}" lists "${entry}" in conflictsWith; ` +
          "KubeVela does not enforce conflictsWith for Applications",
      );
    }
  }
}

/** One conflictsWith entry against a trait: its definition name, its CRD name, `*.group` or `labelSelector:k=v,...`. */
function conflictMatches(entry: string, trait: AppTrait): boolean {
  const crd = asString(asObject(asObject(trait.definition?.object.spec)?.definitionRef)?.name);
  if (entry.startsWith("labelSelector:")) {
    const labels = trait.definition?.object.metadata?.labels ?? {};
    const wanted = entry
      .slice("labelSelector:".length)
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    return (
      wanted.length > 0 &&
      wanted.every((kv) => {
        const [k, v] = kv.split("=");
        return k !== undefined && labels[k.trim()] === (v ?? "").trim();
      })
    );
  }
  if (entry.startsWith("*.")) return crd !== undefined && definitionGroup(crd) === entry.slice(2);
  return entry === trait.type || (crd !== undefined && entry === crd);
}

/** Parameter schemas of definitions, from the config or the ConfigMaps KubeVela generates. */
class ParameterSchemas {
  private readonly entries = new Map<string, SchemaEntry | null>();

  constructor(
    private readonly ctx: RuleContext,
    private readonly sink: FindingSink,
  ) {}

  check(on: Manifest, definition: string, properties: unknown, at: string, label: string): void {
    const entry = this.entry(definition);
    if (!entry) return;
    const read = embeddedYaml11(
      on,
      at,
      properties,
      this.ctx.engine.validateObject(properties ?? {}, entry),
      (o) => this.ctx.engine.validateObject(o, entry),
      this.ctx.yaml11,
    );
    for (const f of read.findings) this.sink.add(on, at + f.pointer, AMBIGUOUS_BOOLEAN, "warning", `properties of ${label} (${definition}): ${f.message}`);
    for (const v of read.violations) {
      this.sink.add(on, at + v.pointer, "vela/properties", v.severity ?? "error", `properties of ${label} (${definition}): ${v.message}`);
    }
  }

  private entry(definition: string): SchemaEntry | undefined {
    if (!this.entries.has(definition)) this.entries.set(definition, this.load(definition));
    return this.entries.get(definition) ?? undefined;
  }

  private load(definition: string): SchemaEntry | null {
    const file = this.ctx.config.parameterSchemas[definition];
    const configMap = this.ctx.index.parameterSchemas.get(definition);
    const origin = file ?? configMap?.file;
    let text: string | undefined;
    try {
      if (file) text = this.ctx.readFile?.(file);
      else if (configMap) text = asString(asObject(configMap.object.data)?.["openapi-v3-json-schema"]);
      if (text === undefined) return null;
      const schema = JSON.parse(text) as OpenAPISchema;
      return { gvk: { group: "", version: "", kind: definition }, source: "location", origin: origin!, schema, structural: false };
    } catch (err) {
      const message = `the parameter schema of ${definition} (${origin}) cannot be read: ${(err as Error).message}`;
      if (configMap && !file) this.sink.add(configMap, "/data", "vela/properties", "warning", message);
      else this.sink.findings.push({ rule: "vela/properties", severity: "warning", message, file });
      return null;
    }
  }
}
