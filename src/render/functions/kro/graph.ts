import { CelCompileError, compileCel, type Program } from "../../../cel/environment.js";
import { isPlainObject as isObject, type JsonObject } from "../../../core/json.js";
import { TemplateError, standaloneExpression, templateExpressions, type FieldExpression } from "./template.js";

/**
 * A ResourceGraph input built into kro's graph (kro/graph/builder.go): nodes with their compiled
 * expressions and dependencies, in kro's order (dependencies first, ties by position in the input).
 * Expressions are not type-checked against schemas here: kro's build-time type errors surface when
 * the expression runs.
 */

export type NodeType = "Resource" | "Collection" | "External" | "ExternalCollection";

export interface Compiled extends FieldExpression {
  program: Program;
  /** Resource ids it reads. */
  dependencies: Set<string>;
  usesOmit: boolean;
}

export interface Dimension {
  name: string;
  expression: Compiled;
}

export interface GraphNode {
  id: string;
  index: number;
  type: NodeType;
  /** The template, or the externalRef. */
  template: JsonObject;
  expressions: Compiled[];
  includeWhen: Compiled[];
  readyWhen: Compiled[];
  forEach: Dimension[];
  dependencies: Set<string>;
}

export interface Graph {
  /** In processing order. */
  nodes: GraphNode[];
  byId: Map<string, GraphNode>;
  status: Compiled[];
}

export interface GraphLimits {
  omitEnabled: boolean;
  maxDimensions: number;
}

export class GraphError extends Error {}

/** An expression needs a CEL feature composition-ci's engine does not have (cel-go macros cel-js lacks). */
export class UnsupportedExpression extends Error {}

const ID = /^[a-z][a-zA-Z0-9]*$/;
const RESERVED = new Set(
  (
    "true false null in as break const continue else for function if import let loop package namespace return var void while " +
    "apiVersion context dependency dependencies each externalRef externalReference externalRefs externalReferences graph instance item items " +
    "kind kro metadata namespace object resource resourcegraphdefinition resourceGraphDefinition resources root runtime schema self " +
    "serviceAccountName spec status this variables vars version"
  ).split(" "),
);
const UNSUPPORTED_MACROS = ["sortBy", "transformList", "transformMap", "transformMapEntry"];
/** cel-go's two-variable `all`/`exists`/`existsOne` (three arguments), which cel-js does not have. */
const TWO_VARIABLE_QUANTIFIER = /\.(all|exists|existsOne|exists_one)\(\s*[A-Za-z_]\w*\s*,\s*[A-Za-z_]\w*\s*,/;

export function buildGraph(input: JsonObject, limits: GraphLimits): Graph {
  const raw = Array.isArray(input.resources) ? input.resources : [];
  const ids = new Set<string>();
  const nodes = raw.map((r, index) => {
    const node = buildNode(isObject(r) ? r : {}, index, ids, limits);
    ids.add(node.id);
    return node;
  });
  for (const n of nodes) {
    for (const d of n.forEach)
      if (ids.has(d.name)) throw new GraphError(`failed to build resource "${n.id}": forEach iterator "${d.name}" has the name of a resource`);
    checkIdentifiers(n, ids);
    for (const d of n.dependencies) if (!ids.has(d)) n.dependencies.delete(d);
    if (n.dependencies.has(n.id)) throw new GraphError(`failed to build dependency graph: self references are not allowed: ${n.id}`);
  }
  const status = statusExpressions(input.status, ids, limits);
  return { nodes: topologicalOrder(nodes), byId: new Map(nodes.map((n) => [n.id, n])), status };
}

function buildNode(r: JsonObject, index: number, seen: Set<string>, limits: GraphLimits): GraphNode {
  const id = typeof r.id === "string" ? r.id : "";
  if (!ID.test(id)) throw new GraphError(`failed to validate resourcegraphdefinition: naming convention violation: id "${id}" must match ${ID.source}`);
  if (RESERVED.has(id)) throw new GraphError(`failed to validate resourcegraphdefinition: naming convention violation: id "${id}" is a reserved keyword`);
  if (seen.has(id)) throw new GraphError(`failed to validate resourcegraphdefinition: found duplicate resource IDs: ${id}`);
  const fail = (message: string): never => {
    throw new GraphError(`failed to build resource "${id}": ${message}`);
  };
  const external = isObject(r.externalRef) ? r.externalRef : undefined;
  const template = isObject(r.template) ? r.template : undefined;
  if (!!external === !!template) fail("exactly one of template or externalRef must be provided");
  const body = (template ?? external)!;
  if (typeof body.apiVersion !== "string" || typeof body.kind !== "string") fail("apiVersion and kind must be strings");
  if (template && !isObject(template.metadata)) fail("metadata field not found or not a map");
  const forEachRaw = Array.isArray(r.forEach) ? r.forEach : [];
  if (external && forEachRaw.length) fail("externalRef cannot be used with forEach");
  if (forEachRaw.length > limits.maxDimensions) fail(`forEach has ${forEachRaw.length} dimensions, more than the maximum of ${limits.maxDimensions}`);
  const compile = (e: FieldExpression) => compileExpression(e, limits, fail);
  const conditions = (list: unknown, what: string) =>
    (Array.isArray(list) ? list : []).map((s) =>
      compile({ path: [], cel: guard(() => standaloneExpression(s, what), fail), standalone: true, original: String(s) }),
    );
  const forEach = forEachRaw.map((d) => {
    const entries = isObject(d) ? Object.entries(d) : [];
    if (entries.length !== 1) fail("each forEach entry must have exactly one iterator");
    const [name, text] = entries[0]!;
    if (!ID.test(name) || RESERVED.has(name)) fail(`forEach iterator "${name}" is not a valid name`);
    return { name, expression: compile({ path: [], cel: guard(() => standaloneExpression(text, "forEach"), fail), standalone: true, original: String(text) }) };
  });
  const expressions = guard(() => templateExpressions(body), fail).map(compile);
  const names = forEach.map((d) => d.name);
  const repeated = names.find((n, i) => names.indexOf(n) !== i);
  if (repeated) fail(`forEach iterator "${repeated}" is declared twice`);
  // Each item needs an identity of its own: every iterator in its name or namespace.
  const identity = expressions.filter((e) => e.path[0] === "metadata" && (e.path[1] === "name" || e.path[1] === "namespace"));
  for (const n of names) if (!identity.some((e) => e.dependencies.has(n))) fail(`forEach iterator "${n}" is not used in metadata.name or metadata.namespace`);
  const includeWhen = conditions(r.includeWhen, "includeWhen");
  const readyWhen = conditions(r.readyWhen, "readyWhen");
  const iterators = new Set(forEach.map((d) => d.name));
  if ([...includeWhen, ...readyWhen].some((c) => c.usesOmit)) fail("omit() is only allowed in template expressions");
  const dependencies = new Set([...expressions, ...includeWhen, ...forEach.map((d) => d.expression)].flatMap((e) => [...e.dependencies]));
  for (const name of iterators) dependencies.delete(name);
  const type: NodeType = external
    ? isObject(isObject(external.metadata) ? external.metadata.selector : undefined)
      ? "ExternalCollection"
      : "External"
    : forEach.length
      ? "Collection"
      : "Resource";
  return { id, index, type, template: body, expressions, includeWhen, readyWhen, forEach, dependencies };
}

function compileExpression(e: FieldExpression, limits: GraphLimits, fail: (m: string) => never): Compiled {
  let program: Program;
  try {
    program = compileCel(e.cel, "kro");
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const macro = UNSUPPORTED_MACROS.find((m) => new RegExp(`\\.${m}\\(`).test(e.cel)) ?? TWO_VARIABLE_QUANTIFIER.exec(e.cel)?.[1];
    if (macro) throw new UnsupportedExpression(`CEL's ${macro}() macro in "${e.original}"`);
    if (err instanceof CelCompileError) fail(`failed to compile template expression "${e.original}" at path "${e.path.join(".")}": ERROR: ${message}`);
    throw err;
  }
  const usesOmit = /\bomit\s*\(\s*\)/.test(e.cel);
  if (usesOmit && !limits.omitEnabled) {
    throw new GraphError("failed to build dependency graph: failed to extract dependencies: omit() requires the CELOmitFunction feature gate to be enabled");
  }
  return { ...e, program, dependencies: new Set(program.shape.free), usesOmit };
}

function guard<T>(f: () => T, fail: (m: string) => never): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof TemplateError) fail(err.message);
    throw err;
  }
}

/** Names an expression may read besides variables: CEL's type names and the libraries' namespaces kro's environment has. */
const LIBRARY_NAMES = new Set([
  ...["int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type", "dyn", "google"],
  ...["optional", "cel", "strings", "lists", "random", "json", "base64"],
]);
/**
 * What the policy engine's CEL has and kro's does not (no ext.Sets, ext.Math, and of Kubernetes'
 * libraries only lists, URLs, regex and quantity): used in a graph, it fails in the cluster.
 */
const NOT_IN_KRO = { namespaces: new Set(["sets", "math", "authorizer"]), functions: new Set(["isIP", "ip", "isCIDR", "cidr", "isSemver", "semver"]) };

/** kro's build-time check: an expression reads only `schema`, resource ids and the node's iterators; readyWhen only the node itself (`each` in a collection). */
function checkIdentifiers(node: GraphNode, ids: Set<string>): void {
  const iterators = new Set(node.forEach.map((d) => d.name));
  const unknown = (e: Compiled, allowed: (name: string) => boolean) => [...e.program.shape.free].filter((n) => !LIBRARY_NAMES.has(n) && !allowed(n));
  for (const e of [...node.expressions, ...node.includeWhen, ...node.readyWhen, ...node.forEach.map((d) => d.expression)]) {
    const foreign = foreignNames(e);
    if (foreign) throw new GraphError(`failed to build resource "${node.id}": expression "${e.original}": ${foreign}`);
  }
  const general = (name: string) => name === "schema" || ids.has(name) || iterators.has(name);
  for (const e of [...node.expressions, ...node.includeWhen, ...node.forEach.map((d) => d.expression)]) {
    const bad = unknown(e, general);
    if (bad.length)
      throw new GraphError(
        `failed to build dependency graph: expression "${e.original}" of resource "${node.id}" references unknown identifiers: [${bad.join(" ")}]`,
      );
  }
  const own = node.type === "Collection" || node.type === "ExternalCollection" ? "each" : node.id;
  for (const e of node.readyWhen) {
    const bad = unknown(e, (name) => name === own);
    if (bad.length) throw new GraphError(`failed to build resource "${node.id}": readyWhen "${e.original}" may reference only ${own}, not [${bad.join(" ")}]`);
  }
}

/** What an expression uses of the policy engine's CEL that kro's lacks, as cel-go would say it. */
function foreignNames(e: Compiled): string | undefined {
  const foreign = [
    ...[...e.program.shape.free].filter((n) => NOT_IN_KRO.namespaces.has(n)),
    ...[...e.program.shape.calls].filter((c) => NOT_IN_KRO.functions.has(c)),
  ];
  return foreign.length ? `undeclared reference to ${foreign.map((f) => `'${f}'`).join(", ")} (not in kro's CEL environment)` : undefined;
}

/** The XR's status: every field an expression over resources (never `schema`). */
function statusExpressions(status: unknown, ids: Set<string>, limits: GraphLimits): Compiled[] {
  if (!isObject(status)) return [];
  const fail = (message: string): never => {
    throw new GraphError(`failed to build instance node: ${message}`);
  };
  const plain: string[] = [];
  const leaves = (v: unknown, path: (string | number)[]): void => {
    if (isObject(v)) for (const [k, x] of Object.entries(v)) leaves(x, [...path, k]);
    else if (typeof v !== "string" || !v.includes("${")) plain.push(path.join("."));
  };
  leaves(status, []);
  if (plain.length) fail(`status fields without expressions are not supported: [${plain.join(" ")}]`);
  const compiled = guard(() => templateExpressions(status), fail).map((e) => compileExpression(e, limits, fail));
  for (const c of compiled) {
    if (c.usesOmit) fail("omit() is not allowed in status expressions");
    const foreign = foreignNames(c);
    if (foreign) fail(`expression "${c.original}": ${foreign}`);
    if (c.dependencies.has("schema")) fail(`references unknown identifiers: [schema]`);
    for (const d of c.dependencies) if (!ids.has(d)) c.dependencies.delete(d);
    if (c.dependencies.size === 0) fail(`instance status field must refer to a resource: ${c.original}`);
  }
  return compiled;
}

/** Kahn's algorithm taking, of the nodes whose dependencies are done, the first in the input. */
function topologicalOrder(nodes: GraphNode[]): GraphNode[] {
  const done = new Set<string>();
  const out: GraphNode[] = [];
  const left = [...nodes];
  while (left.length) {
    const next = left.findIndex((n) => [...n.dependencies].every((d) => done.has(d)));
    if (next < 0) throw new GraphError(`failed to build dependency graph: graph contains a cycle: ${cycleOf(left)}`);
    const [node] = left.splice(next, 1);
    done.add(node!.id);
    out.push(node!);
  }
  return out;
}

function cycleOf(nodes: GraphNode[]): string {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const path: string[] = [];
  let at = nodes[0]!;
  while (!path.includes(at.id)) {
    path.push(at.id);
    at = byId.get([...at.dependencies].find((d) => byId.has(d))!)!;
  }
  return [...path.slice(path.indexOf(at.id)), at.id].join(" -> ");
}
