/** JSON-shaped data as every room passes it: objects parsed from YAML, rendered, diffed. */
export type JsonObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A deep copy of anything structuredClone copies (dates, maps and undefined kept). */
export function cloneJson<T>(v: T): T {
  return v === undefined ? v : structuredClone(v);
}

/** A deep copy of plain JSON data (faster than structuredClone for parsed YAML; any other object is copied as a plain one). */
export function clonePlainJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(clonePlainJson) as T;
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) out[key] = clonePlainJson(value[key]);
    return out as T;
  }
  return value;
}
