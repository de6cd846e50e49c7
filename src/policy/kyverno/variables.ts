import { NotFound, query } from "./jmespath.js";

/**
 * Kyverno's `{{ }}` variables: a string that is one variable becomes its value (of any type), one
 * with text around variables gets them as text (JSON for non-strings); `\{{` stays literal, `{{- x}}`
 * is substituted once (shallow). On a DELETE `request.object` reads `request.oldObject`.
 */

const VARIABLE = /(^|[^\\])(\{\{(?:\{[^{}]*\}|[^{}])*\}\})/g;

export class SubstitutionError extends Error {}

export interface VariableScope {
  data: Record<string, unknown>;
  isDelete: boolean;
}

const withoutVariables = new WeakSet<object>();

/** Every string (keys too) of `doc` with its variables substituted; `doc` is not changed (and is returned when it has none). */
export function substituteAll(doc: unknown, scope: VariableScope): unknown {
  if (doc && typeof doc === "object") {
    if (withoutVariables.has(doc)) return doc;
    if (!JSON.stringify(doc).includes("{{")) {
      withoutVariables.add(doc);
      return doc;
    }
  }
  return substituteDeep(doc, scope);
}

function substituteDeep(doc: unknown, scope: VariableScope): unknown {
  if (typeof doc === "string") return substituteString(doc, scope);
  if (Array.isArray(doc)) return doc.map((d) => substituteDeep(d, scope));
  if (doc && typeof doc === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(doc)) {
      const key = substituteString(k, scope);
      out[typeof key === "string" ? key : JSON.stringify(key)] = substituteDeep(v, scope);
    }
    return out;
  }
  return doc;
}

export function substituteString(value: string, scope: VariableScope): unknown {
  let text = value;
  for (let round = 0; round < 10 && text.includes("{{"); round++) {
    const matches = [...text.matchAll(VARIABLE)];
    if (matches.length === 0) break;
    let shallow = false;
    for (const m of matches) {
      const whole = m[2]!;
      let variable = whole.slice(2, -2).trim();
      if (variable.startsWith("-")) {
        shallow = true;
        variable = variable.slice(1).trim();
      }
      if (scope.isDelete) variable = variable.replace(/request\.object/g, "request.oldObject");
      const resolved = resolve(variable, scope);
      if (text === whole) return resolved;
      let replacement = typeof resolved === "string" ? resolved : JSON.stringify(resolved ?? null);
      if (shallow) replacement = replacement.replace(/\{\{/g, "\\{{");
      text = text.replace(whole, () => replacement);
    }
    if (shallow) break;
  }
  return text.replace(/\\\{\{/g, "{{");
}

function resolve(variable: string, scope: VariableScope): unknown {
  try {
    return query(scope.data, variable);
  } catch (err) {
    if (err instanceof NotFound) throw new SubstitutionError(`failed to resolve ${variable}: ${err.message}`);
    throw new SubstitutionError(`failed to resolve ${variable}: JMESPath query failed: ${(err as Error).message}`);
  }
}

/** Sets a value at a dotted path (`request.object.metadata.name`, quoted segments allowed). */
export function setPath(data: Record<string, unknown>, path: string, value: unknown): void {
  const keys = [...path.matchAll(/"([^"]*)"|([^.]+)/g)].map((m) => m[1] ?? m[2]!);
  let node = data;
  keys.forEach((k, i) => {
    if (i === keys.length - 1) node[k] = value;
    else {
      const next = node[k];
      node = (node[k] = next && typeof next === "object" && !Array.isArray(next) ? { ...(next as Record<string, unknown>) } : {}) as Record<string, unknown>;
    }
  });
}
