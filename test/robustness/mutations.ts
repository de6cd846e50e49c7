/** Structural mutations of a JSON object for robustness tests: each path deleted, nulled, given the wrong type. */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface Mutation {
  /** JSON pointer of the mutated field. */
  pointer: string;
  how: "deleted" | "null" | "wrong type";
  apply: (doc: Json) => Json;
}

/** Every path down to `depth` (array items: the first only), with the three mutations each. */
export function mutations(doc: Json, depth: number): Mutation[] {
  const out: Mutation[] = [];
  const walk = (value: Json, tokens: (string | number)[]) => {
    if (tokens.length >= depth || value === null || typeof value !== "object") return;
    const entries: [string | number, Json][] = Array.isArray(value) ? (value.length ? [[0, value[0]!]] : []) : Object.entries(value);
    for (const [key, child] of entries) {
      const at = [...tokens, key];
      const pointer = "/" + at.join("/");
      out.push({ pointer, how: "deleted", apply: (d) => edit(d, at, undefined) });
      out.push({ pointer, how: "null", apply: (d) => edit(d, at, null) });
      out.push({ pointer, how: "wrong type", apply: (d) => edit(d, at, wrongType(child)) });
      walk(child, at);
    }
  };
  walk(doc, []);
  return out;
}

function wrongType(v: Json): Json {
  if (typeof v === "string") return { fuzz: 1 };
  if (Array.isArray(v)) return "fuzz";
  if (v !== null && typeof v === "object") return ["fuzz"];
  return "fuzz";
}

function edit(doc: Json, at: (string | number)[], value: Json | undefined): Json {
  const copy = structuredClone(doc);
  let parent = copy as Record<string | number, Json> | Json[];
  for (const t of at.slice(0, -1)) parent = (parent as Record<string | number, Json>)[t] as Record<string, Json>;
  const last = at[at.length - 1]!;
  if (value !== undefined) (parent as Record<string | number, Json>)[last] = value;
  else if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete (parent as Record<string, Json>)[last];
  return copy;
}
