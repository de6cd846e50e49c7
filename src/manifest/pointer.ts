/** JSON pointers (RFC 6901) and their display as Crossplane field paths. */

export function pointerSegments(pointer: string): string[] {
  if (pointer === "" || pointer === "/") return pointer === "/" ? [""] : [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
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
