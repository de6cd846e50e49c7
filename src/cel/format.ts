/** The CEL strings extension's `format`: %s %d %f %e %x %X %o %b %% with a list of arguments. */
export function formatString(template: string, args: unknown[]): string {
  let next = 0;
  return template.replace(/%(?:\.(\d+))?([sdfeExXob%])/g, (_, precision: string | undefined, verb: string) => {
    if (verb === "%") return "%";
    if (next >= args.length) throw new Error(`index ${next} out of range`);
    const arg = args[next++];
    const digits = precision === undefined ? 6 : Number(precision);
    switch (verb) {
      case "s":
        return show(arg);
      case "d":
        if (typeof arg !== "bigint" && !(typeof arg === "number" && Number.isInteger(arg)))
          throw new Error(`error during formatting: decimal clause can only be used on integers, was given ${typeof arg}`);
        return String(arg);
      case "f":
        if (typeof arg !== "number" && typeof arg !== "bigint")
          throw new Error(`error during formatting: fixed-point clause can only be used on numbers, was given ${typeof arg}`);
        return Number(arg).toFixed(digits);
      case "e":
        if (typeof arg !== "number" && typeof arg !== "bigint")
          throw new Error(`error during formatting: scientific clause can only be used on numbers, was given ${typeof arg}`);
        return Number(arg)
          .toExponential(digits)
          .replace(/e([+-])(\d)$/, "e$10$2");
      case "x":
      case "X": {
        const s = typeof arg === "string" || arg instanceof Uint8Array ? Buffer.from(arg as string).toString("hex") : BigInt(arg as bigint).toString(16);
        return verb === "X" ? s.toUpperCase() : s;
      }
      case "o":
        return BigInt(arg as bigint).toString(8);
      default:
        return BigInt(arg as bigint).toString(2);
    }
  });
}

function show(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null) return "null";
  if (v instanceof Uint8Array) return Buffer.from(v).toString("utf8");
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${showQuoted(k)}:${showQuoted(x)}`).join(", ")}}`;
  if (Array.isArray(v)) return `[${v.map(showQuoted).join(", ")}]`;
  if (v instanceof Date) return v.toISOString().replace(".000Z", "Z");
  if (v && typeof v === "object" && Object.getPrototypeOf(v) === null) {
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${showQuoted(x)}`)
      .join(", ")}}`;
  }
  return String(v);
}

function showQuoted(v: unknown): string {
  return typeof v === "string" ? JSON.stringify(v) : show(v);
}
