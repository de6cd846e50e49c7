/**
 * A JSON number as `yaml.Marshal` prints it after the round trip of sigs.k8s.io/yaml.JSONToYAML.
 *
 * The value is a float64 (JS numbers, and function outputs in Go, which come from protobuf
 * doubles). encoding/json writes it with the shortest digits: plain up to 1e21, exponent form
 * beyond, the same text as JS `String(x)`. yaml.v2 reads that text back as an int when
 * strconv.ParseInt accepts it, as a uint64 when ParseUint does, and as a float64 otherwise; it
 * prints ints in decimal and floats with strconv.FormatFloat(f, 'g', -1, 64).
 *
 * Integers beyond 2^53 have already lost precision in JS, so they print as the shortest digits of
 * the double padded with zeros, as Go does for a float64 (an int64 read from YAML by Go would keep
 * every digit).
 */

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) throw new Error(`json: unsupported value: ${x}`);
  if (Number.isSafeInteger(x)) return String(x);
  const text = String(x);
  if (Number.isInteger(x) && !text.includes("e")) {
    const n = BigInt(text);
    if (n >= INT64_MIN && n <= UINT64_MAX) return text;
  }
  return formatFloatG(x);
}

/** strconv.FormatFloat(x, 'g', -1, 64): %e when the exponent is < -4 or >= 6, else %f. */
function formatFloatG(x: number): string {
  const { digits, exp } = shortestDigits(Math.abs(x));
  if (exp >= -4 && exp < 6) return String(x);
  const sign = x < 0 ? "-" : "";
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const e = Math.abs(exp);
  return `${sign}${mantissa}e${exp < 0 ? "-" : "+"}${e < 10 ? "0" : ""}${e}`;
}

/**
 * The shortest round-trip digits of a positive finite x (as JS and Go both choose them) and the
 * decimal exponent of the first digit.
 */
function shortestDigits(abs: number): { digits: string; exp: number } {
  const text = String(abs);
  const e = text.indexOf("e");
  const mantissa = e < 0 ? text : text.slice(0, e);
  const dot = mantissa.indexOf(".");
  const intPart = dot < 0 ? mantissa : mantissa.slice(0, dot);
  const all = dot < 0 ? mantissa : intPart + mantissa.slice(dot + 1);
  let lead = 0;
  while (all[lead] === "0") lead++;
  return {
    digits: all.slice(lead).replace(/0+$/, ""),
    exp: (e < 0 ? 0 : Number(text.slice(e + 1))) + intPart.length - 1 - lead,
  };
}
