import { celEnv, isCelError, parse, plan, type CelEnv } from "@bufbuild/cel";
import type { Resource, RunFunctionRequest, RunFunctionResponse, State } from "@crossplane-org/function-sdk-typescript";
import { Regexp } from "../../go/regexp.js";
import { errorMessage, fatal, responseTo } from "./response.js";

/**
 * function-cel-filter (fn.go): each filter's CEL expression is evaluated once against the
 * request's observed and desired state and context; a desired composed resource whose name
 * matches a filter's name (an anchored RE2 pattern) is removed when that expression is false.
 */

interface Filter {
  name?: string;
  expression?: string;
}

type Program = (bindings: Record<string, unknown>) => unknown;

let env: CelEnv | undefined;
const programs = new Map<string, Program | Error>();

function program(expression: string): Program {
  let p = programs.get(expression);
  if (!p) {
    try {
      env ??= celEnv({});
      p = plan(env, parse(expression)) as unknown as Program;
    } catch (err) {
      p = new Error(`cannot parse expression: ${errorMessage(err)}`);
    }
    if (programs.size > 512) programs.clear();
    programs.set(expression, p);
  }
  if (p instanceof Error) throw p;
  return p;
}

/** A State as CEL sees the proto message: unset fields are their defaults, fields by proto name. */
function stateValue(s: State | undefined): Record<string, unknown> {
  const resource = (r: Resource | undefined) => ({
    resource: r?.resource ?? {},
    connection_details: r?.connectionDetails ?? {},
    ready: r?.ready ?? 0,
  });
  return {
    composite: resource(s?.composite),
    resources: Object.fromEntries(Object.entries(s?.resources ?? {}).map(([k, r]) => [k, resource(r)])),
  };
}

function celType(v: unknown): string {
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "double";
  if (typeof v === "string") return "string";
  if (Array.isArray(v)) return "list(dyn)";
  if (v === null) return "null_type";
  return typeof v === "object" ? "map(dyn, dyn)" : typeof v;
}

function evaluate(expression: string, req: RunFunctionRequest): boolean {
  const result = program(expression)({ observed: stateValue(req.observed), desired: stateValue(req.desired), context: req.context ?? {} });
  if (isCelError(result)) throw new Error(`cannot evaluate CEL program: ${(result as Error).message}`);
  if (typeof result !== "boolean") throw new Error(`expression "${expression}" must return a boolean, but will return ${celType(result)} instead`);
  return result;
}

/** function-cel-filter's RunFunction, in process. */
export function runCelFilter(req: RunFunctionRequest): RunFunctionResponse {
  const rsp: RunFunctionResponse = responseTo(req);
  // response.To leaves desired unset when the request has none
  if (!req.desired) rsp.desired = undefined;
  const filters = ((req.input as { filters?: Filter[] } | undefined)?.filters ?? []) as Filter[];
  const compiled: { re: Regexp; include: boolean }[] = [];
  for (const [i, f] of filters.entries()) {
    const expr = `^${f.name ?? ""}$`;
    let re: Regexp;
    try {
      re = Regexp.compile(expr);
    } catch (err) {
      return fatal(rsp, `cannot compile regular expression "${expr}" for filter ${i}: ${errorMessage(err)}`);
    }
    try {
      compiled.push({ re, include: evaluate(f.expression ?? "", req) });
    } catch (err) {
      return fatal(rsp, `cannot evaluate CEL expression "${f.expression ?? ""}" for filter ${i}: ${errorMessage(err)}`);
    }
  }
  const resources = rsp.desired?.resources ?? {};
  for (const name of Object.keys(resources)) {
    if (compiled.some((c) => c.re.matchString(name) && !c.include)) delete resources[name];
  }
  return rsp;
}
