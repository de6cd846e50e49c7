/** A validation's `fieldPath` (`spec.replicas`, `.spec.containers[0].image`, `metadata.labels['a.b']`) as a JSON pointer; "" when it cannot be read. */
export function fieldPathPointer(fieldPath: string | undefined): string {
  if (!fieldPath) return "";
  const segments: string[] = [];
  const re = /\.?([A-Za-z_$][A-Za-z0-9_$-]*)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]/y;
  let consumed = 0;
  for (let m = re.exec(fieldPath); m && m[0] !== ""; m = re.exec(fieldPath)) {
    segments.push(m[1] ?? m[2] ?? m[3] ?? m[4]!);
    consumed = re.lastIndex;
  }
  if (consumed !== fieldPath.length) return "";
  return segments.map((s) => `/${s.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}
