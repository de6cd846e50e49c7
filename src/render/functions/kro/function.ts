import { Ready, type Resource, type ResourceSelector, type RunFunctionRequest, type RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { toCel } from "../../../cel/values.js";
import { isPlainObject as isObject, type JsonObject } from "../../../core/json.js";
import { FunctionNotRunnable } from "../../../runtimes/runtime.js";
import { desiredResource, errorMessage, fatal, observedComposite, responseTo, warning } from "../response.js";
import { buildGraph, GraphError, UnsupportedExpression, type Compiled, type Graph, type GraphNode } from "./graph.js";
import { jsonValue, resolveTemplate, type FieldPath } from "./template.js";

/**
 * function-kro (fn.go on kro's runtime): a ResourceGraph's resources rendered in dependency order
 * from the observed XR (`schema`) and the observed composed resources, each resource only once
 * everything it reads is observed and ready; includeWhen, readyWhen, forEach collections,
 * externalRefs as required resources, and the XR's status from expressions.
 */

/** The function's flags, from its DeploymentRuntimeConfig; undefined when they cannot be known (a Development function). */
export interface KroFlags {
  omitEnabled?: boolean;
  maxCollectionSize?: number;
  maxDimensions?: number;
}

const COLLECTION_INDEX = "kro.run/collection-index";

export function kroFlags(args: string[] | undefined): KroFlags | undefined {
  if (!args) return undefined;
  const flags: KroFlags = { omitEnabled: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("-")) continue;
    // kong takes `--flag=value` and `--flag value`.
    let [name, value] = arg.replace(/^--?/, "").split(/=(.*)/s) as [string, string | undefined];
    if (value === undefined && i + 1 < args.length && !args[i + 1]!.startsWith("-")) value = args[++i];
    value ??= "";
    if (name === "feature-gates") {
      // The Kubernetes feature-gate syntax: Name=bool, Go's ParseBool.
      const gate = value
        .split(",")
        .map((g) => g.trim().split("="))
        .find(([k]) => k === "CELOmitFunction");
      if (gate) flags.omitEnabled = ["1", "t", "T", "TRUE", "true", "True"].includes(gate[1] ?? "");
    }
    if (name === "rgd-max-collection-size" && /^\d+$/.test(value)) flags.maxCollectionSize = Number(value);
    if (name === "rgd-max-collection-dim-size" && /^\d+$/.test(value)) flags.maxDimensions = Number(value);
  }
  return flags;
}

/** A value CEL cannot have yet (kro's "data pending"): a missing variable, key or index. */
class Pending extends Error {}

export function runKro(req: RunFunctionRequest, flags?: KroFlags): RunFunctionResponse {
  const rsp = responseTo(req);
  const input = (req.input ?? {}) as JsonObject;
  const omitKnown = flags?.omitEnabled !== undefined;
  let graph: Graph;
  try {
    graph = buildGraph(input, { omitEnabled: flags?.omitEnabled ?? true, maxDimensions: flags?.maxDimensions ?? 10 });
  } catch (err) {
    if (err instanceof UnsupportedExpression) {
      throw new FunctionNotRunnable(
        `composition-ci's built-in function-kro cannot evaluate ${err.message}`,
        "run the real function: serve it and give its address with --development-target function-kro=HOST:PORT",
      );
    }
    if (err instanceof GraphError) return fatal(rsp, `cannot create resource graph: ${err.message}`);
    throw err;
  }
  if (!omitKnown && graph.nodes.some((n) => n.expressions.some((e) => e.usesOmit))) {
    warning(
      rsp,
      "omit() needs function-kro's --feature-gates=CELOmitFunction=true; the flags this Function runs with are not known here (a Development function, or a DeploymentRuntimeConfig that is not in the repository): rendered as if the gate were on",
    );
  }
  const run = new GraphRun(graph, req, flags?.maxCollectionSize ?? 1000);
  try {
    rsp.requirements = { extraResources: {}, resources: run.externalSelectors(), schemas: {} };
    for (const node of graph.nodes) run.render(node, rsp.desired.resources);
    const oxr = observedComposite(req);
    rsp.desired.composite = desiredResource({ apiVersion: oxr.apiVersion, kind: oxr.kind, ...run.status() } as JsonObject);
  } catch (err) {
    if (err instanceof RunError) return fatal(rsp, err.message);
    throw err;
  }
  return rsp;
}

class RunError extends Error {}

/** One evaluation of the graph: what is observed, what was rendered this run, and what is ignored. */
class GraphRun {
  private readonly schema: unknown;
  private readonly observed = new Map<string, JsonObject[]>();
  private readonly ignored = new Map<string, boolean | "skip">();
  private readonly skipped = new Set<string>();
  private readonly desiredCount = new Map<string, number>();

  constructor(
    private readonly graph: Graph,
    private readonly req: RunFunctionRequest,
    private readonly maxCollectionSize: number,
  ) {
    const { status: _status, ...xr } = observedComposite(req);
    this.schema = toCel(xr).value;
    this.matchObserved();
  }

  /** Observed composed resources by node: by name, or a collection's items by their index label (in index order). */
  private matchObserved(): void {
    const collections = this.graph.nodes.filter((n) => n.type === "Collection").map((n) => n.id);
    for (const [name, r] of Object.entries(this.req.observed?.resources ?? {})) {
      const object = (r.resource ?? {}) as JsonObject;
      let id: string | undefined = this.graph.byId.has(name) ? name : undefined;
      if (!id && labelOf(object, COLLECTION_INDEX) !== undefined)
        id = collections.filter((c) => name.startsWith(`${c}-`)).sort((a, b) => b.length - a.length)[0];
      if (id) this.observed.set(id, [...(this.observed.get(id) ?? []), object]);
    }
    for (const items of this.observed.values()) items.sort((a, b) => Number(labelOf(a, COLLECTION_INDEX) ?? 0) - Number(labelOf(b, COLLECTION_INDEX) ?? 0));
    for (const node of this.graph.nodes) {
      if (node.type !== "External" && node.type !== "ExternalCollection") continue;
      const items = (this.req.requiredResources?.[node.id]?.items ?? []).map((i) => (i.resource ?? {}) as JsonObject);
      if (items.length) this.observed.set(node.id, items);
    }
  }

  /** What each externalRef asks Crossplane for. */
  externalSelectors(): Record<string, ResourceSelector> {
    const out: Record<string, ResourceSelector> = {};
    const xrNamespace = String((observedComposite(this.req).metadata as JsonObject | undefined)?.namespace ?? "");
    for (const node of this.graph.nodes) {
      if (node.type !== "External" && node.type !== "ExternalCollection") continue;
      if (node.type === "ExternalCollection" && !this.dependenciesReady(node)) continue;
      let ref: JsonObject;
      try {
        ref = this.resolve(node, {}) as JsonObject;
      } catch (err) {
        if (err instanceof Pending) continue;
        throw new RunError(`cannot build external resource selectors: ${errorMessage(err)}`);
      }
      const metadata = (ref.metadata ?? {}) as JsonObject;
      const base = { apiVersion: String(ref.apiVersion), kind: String(ref.kind) };
      if (node.type === "External") out[node.id] = { ...base, matchName: String(metadata.name ?? ""), namespace: String(metadata.namespace || xrNamespace) };
      else {
        const labels = (((metadata.selector ?? {}) as JsonObject).matchLabels ?? {}) as Record<string, string>;
        out[node.id] = { ...base, matchLabels: { labels }, ...(metadata.namespace ? { namespace: String(metadata.namespace) } : {}) };
      }
    }
    return out;
  }

  render(node: GraphNode, desired: Record<string, Resource>): void {
    const ignored = this.ignoreState(node);
    if (node.type === "External" || node.type === "ExternalCollection") return;
    if (ignored !== false) {
      this.skipped.add(node.id);
      return;
    }
    if (!this.dependenciesReady(node)) {
      this.skipped.add(node.id);
      return;
    }
    let objects: JsonObject[];
    try {
      objects = node.type === "Collection" ? this.collection(node) : [this.resolve(node, {}) as JsonObject];
    } catch (err) {
      if (err instanceof Pending) {
        this.skipped.add(node.id);
        return;
      }
      const message = errorMessage(err);
      throw new RunError(`cannot get desired state for resource "${node.id}": ${message.startsWith("eval ") ? `node "${node.id}": ` : ""}${message}`);
    }
    this.desiredCount.set(node.id, objects.length);
    const ready = node.readyWhen.length === 0 ? Ready.READY_UNSPECIFIED : this.readiness(node) === true ? Ready.READY_TRUE : Ready.READY_FALSE;
    for (const object of objects) {
      const key = node.type === "Collection" ? `${node.id}-${String((object.metadata as JsonObject | undefined)?.name ?? "")}` : node.id;
      desired[key] = desiredResource(object, ready);
    }
  }

  /**
   * true: left out by includeWhen, or because a dependency is; "skip": cannot be decided this run
   * (a dependency's or its own condition failed or waits); false: included. Worked out once per node.
   */
  private ignoreState(node: GraphNode): boolean | "skip" {
    let state = this.ignored.get(node.id);
    if (state === undefined) this.ignored.set(node.id, (state = this.decideIgnored(node)));
    return state;
  }

  private decideIgnored(node: GraphNode): boolean | "skip" {
    for (const id of node.dependencies) {
      const state = this.ignoreState(this.graph.byId.get(id)!);
      if (state !== false) return state;
    }
    if (node.includeWhen.length === 0) return false;
    const referenced = new Set(node.includeWhen.flatMap((c) => [...c.dependencies].filter((d) => this.graph.byId.has(d))));
    for (const id of referenced) if (!this.observed.has(id) || this.readiness(this.graph.byId.get(id)!) !== true) return "skip";
    for (const condition of node.includeWhen) {
      let value: unknown;
      try {
        value = jsonValue(this.evaluate(condition, {}));
      } catch {
        return "skip";
      }
      if (value === false || value === null) return true;
      if (value !== true) return "skip"; // kro: the condition did not return a bool
    }
    return false;
  }

  /** kro's gate: every dependency observed and ready (an ignored one counts as ready); a readiness that fails to evaluate is fatal. */
  private dependenciesReady(node: GraphNode): boolean {
    return [...node.dependencies].every((id) => {
      if (this.ignored.get(id) === true) return true;
      const ready = this.readiness(this.graph.byId.get(id)!);
      if (ready instanceof Error) throw new RunError(`cannot get desired state for resource "${node.id}": ${ready.message}`);
      return ready;
    });
  }

  /** true: ready; false: waiting (not observed, a condition false or not evaluable yet); an Error: a condition failed. */
  private readiness(node: GraphNode): boolean | Error {
    const items = this.observed.get(node.id) ?? [];
    const passes = (vars: Record<string, unknown>): boolean | Error => {
      for (const c of node.readyWhen) {
        let value: unknown;
        try {
          value = jsonValue(this.evaluate(c, vars, false));
        } catch (err) {
          if (err instanceof Pending) return false;
          return err instanceof Error ? err : new Error(String(err));
        }
        if (value === false || value === null) return false;
        if (value !== true) return new Error(`readyWhen "${c.original}" did not return a bool`);
      }
      return true;
    };
    const all = (results: (boolean | Error)[]): boolean | Error => results.find((r) => r instanceof Error) ?? results.every((r) => r === true);
    switch (node.type) {
      case "Resource":
      case "External":
        return items.length > 0 && passes({ [node.id]: toCel(items[0]).value });
      case "ExternalCollection":
        return node.readyWhen.length === 0 || items.length === 0 || all(items.map((i) => passes({ each: toCel(i).value })));
      case "Collection": {
        const want = this.desiredCount.get(node.id);
        if (want === undefined || this.skipped.has(node.id)) return false;
        return items.length >= want && all(items.map((i) => passes({ each: toCel(i).value })));
      }
    }
  }

  /** A collection's items: the forEach dimensions' cartesian product, the last varying fastest. */
  private collection(node: GraphNode): JsonObject[] {
    // kro's order: the expressions that read no iterator first (waiting or failing there decides), then each dimension in turn.
    const iteratorNames = new Set(node.forEach.map((d) => d.name));
    for (const e of node.expressions) if (![...e.dependencies].some((d) => iteratorNames.has(d))) this.evaluate(e, {});
    const dimensions: { name: string; values: unknown[] }[] = [];
    for (const d of node.forEach) {
      const value = this.evaluate(d.expression, {});
      if (value === null || value === undefined) throw new Error(`forEach "${d.name}": expression evaluated to null`);
      if (!Array.isArray(value)) throw new Error(`forEach "${d.name}": expression must evaluate to a list`);
      if (value.length === 0) return [];
      dimensions.push({ name: d.name, values: value as unknown[] });
    }
    const size = dimensions.reduce((n, d) => n * d.values.length, 1);
    if (size > this.maxCollectionSize) throw new Error(`collection size of ${size} is over the maximum collection size of ${this.maxCollectionSize}`);
    const items: JsonObject[] = [];
    const identities = new Set<string>();
    for (let i = 0; i < size; i++) {
      const iterators: Record<string, unknown> = {};
      let rest = i;
      for (let d = dimensions.length - 1; d >= 0; d--) {
        const values = dimensions[d]!.values;
        iterators[dimensions[d]!.name] = values[rest % values.length];
        rest = Math.floor(rest / values.length);
      }
      const object = this.resolve(node, iterators) as JsonObject;
      const metadata = (isObject(object.metadata) ? object.metadata : (object.metadata = {})) as JsonObject;
      metadata.labels = { ...(isObject(metadata.labels) ? metadata.labels : {}), [COLLECTION_INDEX]: String(i) };
      const identity = `${String(object.apiVersion)}/${String(object.kind)}/${String(metadata.namespace ?? "")}/${String(metadata.name ?? "")}`;
      if (identities.has(identity)) throw new Error(`identity collision: duplicate identity: ${identity}`);
      identities.add(identity);
      items.push(object);
    }
    return items;
  }

  /** The node's template (or externalRef) with its expressions' values. */
  private resolve(node: GraphNode, iterators: Record<string, unknown>): unknown {
    const values: { path: FieldPath; value: unknown }[] = node.expressions.map((e) => ({ path: e.path, value: jsonValue(this.evaluate(e, iterators)) }));
    return resolveTemplate(node.template, values);
  }

  /** The XR's status: each field whose expression can be evaluated now. */
  status(): { status?: JsonObject } {
    if (this.graph.status.length === 0) return {};
    const values: { path: FieldPath; value: unknown }[] = [];
    for (const e of this.graph.status) {
      try {
        values.push({ path: e.path, value: jsonValue(this.evaluate(e, {})) });
      } catch (err) {
        if (err instanceof Pending) continue;
        throw new RunError(`cannot get desired instance status: ${errorMessage(err)}`);
      }
    }
    const status: JsonObject = {};
    for (const { path, value } of values) setPath(status, path, value);
    return Object.keys(status).length ? { status } : {};
  }

  /**
   * Evaluates with `schema`, the observed objects of what the expression reads (a collection as a
   * list) and `vars`. A missing variable, key or index is Pending; other failures are errors.
   */
  private evaluate(e: Compiled, vars: Record<string, unknown>, withDependencies = true): unknown {
    const activation: Record<string, unknown> = { schema: this.schema, ...vars };
    if (withDependencies) {
      for (const id of e.dependencies) {
        const node = this.graph.byId.get(id);
        const items = this.observed.get(id);
        if (!node || !items?.length) continue;
        const many = node.type === "Collection" || node.type === "ExternalCollection";
        activation[id] = toCel(many ? items : items[0]).value;
      }
    }
    const sizes = { widest: 1, longestString: 1 };
    for (const v of Object.values(activation)) {
      const s = toCel(v);
      sizes.widest = Math.max(sizes.widest, s.widest);
      sizes.longestString = Math.max(sizes.longestString, s.longestString);
    }
    try {
      return e.program.run(activation, sizes);
    } catch (err) {
      const message = errorMessage(err);
      const unknown = /^Unknown variable: (\S+)/.exec(message)?.[1];
      if (unknown !== undefined && !this.graph.byId.has(unknown)) throw new Error(`eval "${e.original}": references unknown identifiers: [${unknown}]`);
      if (unknown !== undefined || /^No such key|index out of bounds|no such (key|field|attribute)/i.test(message)) throw new Pending(message);
      throw new Error(`eval "${e.original}": ${message}`);
    }
  }
}

function labelOf(object: JsonObject, label: string): string | undefined {
  const labels = (object.metadata as JsonObject | undefined)?.labels as Record<string, string> | undefined;
  return labels?.[label];
}

function setPath(target: JsonObject, path: FieldPath, value: unknown): void {
  let at = target as Record<string | number, unknown>;
  path.forEach((p, i) => {
    if (i === path.length - 1) at[p] = value;
    else at = (at[p] ??= typeof path[i + 1] === "number" ? [] : {}) as Record<string | number, unknown>;
  });
}
