/** JSON pointers (RFC 6901) and their display as Crossplane field paths. */

export function pointerSegments(pointer: string): string[] {
  if (pointer === "" || pointer === "/") return pointer === "/" ? [""] : [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The value at a path of keys (array indexes as strings), or undefined where the path leaves the object. */
export function valueAtSegments(object: unknown, segments: readonly string[]): unknown {
  let node = object;
  for (const segment of segments) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** The value at a JSON pointer (RFC 6901), or undefined. */
export function valueAtPointer(object: unknown, pointer: string): unknown {
  return valueAtSegments(object, pointerSegments(pointer));
}

export function toPointer(segments: ReadonlyArray<string | number>): string {
  return segments.map((s) => "/" + String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

/** `/spec/pipeline/0/step` → `spec.pipeline[0].step`; keys with dots use brackets: `metadata.labels[a.b/c]`. */
export function pointerToFieldPath(pointer: string): string {
  let out = "";
  for (const seg of pointerSegments(pointer)) {
    if (/^\d+$/.test(seg)) out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out === "" ? seg : `.${seg}`;
    else out += `[${seg}]`;
  }
  return out;
}
