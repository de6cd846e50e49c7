/**
 * go-yaml's implicit typing of plain scalars (resolve.go). v2 is YAML 1.1 (yes/no/on/off are
 * booleans); v3 keeps only true/false and adds 0o octal. Both read "0755" as octal, keep
 * timestamps as strings for interface{} targets, and take underscores out of numbers.
 */

export type YamlVersion = 2 | 3;

export type Resolved =
  | { tag: "!!null"; value: null }
  | { tag: "!!bool"; value: boolean }
  | { tag: "!!int"; value: number; big?: bigint; unsigned?: boolean }
  | { tag: "!!float"; value: number }
  | { tag: "!!str"; value: string }
  | { tag: "!!timestamp"; value: string }
  | { tag: "!!merge"; value: "<<" }
  | { tag: string; value: string };

const BOOLS_V2: Record<string, boolean> = {
  y: true,
  Y: true,
  yes: true,
  Yes: true,
  YES: true,
  on: true,
  On: true,
  ON: true,
  n: false,
  N: false,
  no: false,
  No: false,
  NO: false,
  off: false,
  Off: false,
  OFF: false,
};

const COMMON: Record<string, Resolved> = {
  true: { tag: "!!bool", value: true },
  True: { tag: "!!bool", value: true },
  TRUE: { tag: "!!bool", value: true },
  false: { tag: "!!bool", value: false },
  False: { tag: "!!bool", value: false },
  FALSE: { tag: "!!bool", value: false },
  "": { tag: "!!null", value: null },
  "~": { tag: "!!null", value: null },
  null: { tag: "!!null", value: null },
  Null: { tag: "!!null", value: null },
  NULL: { tag: "!!null", value: null },
  ".nan": { tag: "!!float", value: NaN },
  ".NaN": { tag: "!!float", value: NaN },
  ".NAN": { tag: "!!float", value: NaN },
  ".inf": { tag: "!!float", value: Infinity },
  ".Inf": { tag: "!!float", value: Infinity },
  ".INF": { tag: "!!float", value: Infinity },
  "+.inf": { tag: "!!float", value: Infinity },
  "+.Inf": { tag: "!!float", value: Infinity },
  "+.INF": { tag: "!!float", value: Infinity },
  "-.inf": { tag: "!!float", value: -Infinity },
  "-.Inf": { tag: "!!float", value: -Infinity },
  "-.INF": { tag: "!!float", value: -Infinity },
  "<<": { tag: "!!merge", value: "<<" },
};

const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

/** strconv.ParseInt/ParseUint(s, 0, 64) without underscores: a bigint, or undefined. */
function parseGoInt(s: string, base0 = true): bigint | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m || !base0) return undefined;
  const body = m[2];
  let v: bigint;
  if (/^0[0-7]+$/.test(body)) v = BigInt("0o" + body.slice(1));
  else v = BigInt(body.toLowerCase().replace(/^0([xob])/, "0$1"));
  return m[1] === "-" ? -v : v;
}

function timestamp(s: string): boolean {
  const m = /^(\d{4})-/.exec(s);
  if (!m) return false;
  return (
    /^\d{4}-\d{1,2}-\d{1,2}$/.test(s) ||
    /^\d{4}-\d{1,2}-\d{1,2}[Tt]\d{1,2}:\d{1,2}:\d{1,2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/.test(s) ||
    /^\d{4}-\d{1,2}-\d{1,2} \d{1,2}:\d{1,2}:\d{1,2}(\.\d{1,9})?$/.test(s)
  );
}

/** resolve("", s): the implicit type of a plain scalar. */
export function resolvePlain(s: string, version: YamlVersion): Resolved {
  if (Object.hasOwn(COMMON, s)) return COMMON[s];
  if (version === 2 && Object.hasOwn(BOOLS_V2, s)) return { tag: "!!bool", value: BOOLS_V2[s] };
  const c = s[0];
  if (c === ".") {
    if (/^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s)) return { tag: "!!float", value: Number(s) };
    return { tag: "!!str", value: s };
  }
  if (c === "+" || c === "-" || (c >= "0" && c <= "9")) {
    if (timestamp(s)) return { tag: "!!timestamp", value: s };
    const plain = s.replace(/_/g, "");
    const i = parseGoInt(plain);
    if (i !== undefined) {
      if (i >= INT64_MIN && i <= INT64_MAX) return { tag: "!!int", value: Number(i), big: i };
      if (i >= 0n && i <= UINT64_MAX) return { tag: "!!int", value: Number(i), big: i, unsigned: true };
    }
    if (YAML_FLOAT.test(plain)) {
      const f = Number(plain);
      if (Number.isFinite(f)) return { tag: "!!float", value: f };
    }
    if (/^-?0b[01]+$/.test(plain)) {
      const v = BigInt(plain.replace("-", "")) * (plain.startsWith("-") ? -1n : 1n);
      return { tag: "!!int", value: Number(v), big: v };
    }
    if (version === 3 && /^0o[0-7]+$/.test(plain)) return { tag: "!!int", value: Number(BigInt(plain)), big: BigInt(plain) };
  }
  return { tag: "!!str", value: s };
}

/** A plain scalar's string form would read back as something else (the encoder then quotes it). */
export function needsQuotes(s: string): boolean {
  const r = resolvePlain(s, 3);
  if (r.tag !== "!!str") return true;
  return isBase60Float(s) || isOldBool(s);
}

function isBase60Float(s: string): boolean {
  if (s === "" || !/^[-+0-9]/.test(s) || !s.includes(":")) return false;
  return /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/.test(s);
}

const isOldBool = (s: string) => Object.hasOwn(BOOLS_V2, s);
