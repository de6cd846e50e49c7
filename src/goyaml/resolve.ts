/**
 * Whether yaml.v2 would read a plain (unquoted) scalar back as the same string: the test of
 * encode.go stringv, `resolve("", s)` gives !!str and s is not a YAML 1.1 base-60 float. Strings
 * that fail it are double-quoted.
 */
export function plainReadsAsString(s: string): boolean {
  if (s === "" || RESOLVED.has(s)) return false;
  const c = s.charCodeAt(0);
  if (c === 0x2e) return !isDotFloat(s);
  if (c === 0x2b || c === 0x2d || (c >= 0x30 && c <= 0x39)) return !(isTimestamp(s) || isNumber(s) || isBase60(s));
  return true;
}

/** resolve.go's table of YAML 1.1 bools, nulls and special floats ("" and "<<" aside: "" is handled above, "<<" is never looked up). */
const RESOLVED = new Set(
  [
    "y Y yes Yes YES true True TRUE on On ON",
    "n N no No NO false False FALSE off Off OFF",
    "~ null Null NULL",
    ".nan .NaN .NAN .inf .Inf .INF +.inf +.Inf +.INF -.inf -.Inf -.INF",
  ].flatMap((line) => line.split(" ")),
);

const DOT_FLOAT = /^\.[0-9]+(?:_[0-9]+)*(?:[eE][-+]?[0-9]+(?:_[0-9]+)*)?$/;

/** strconv.ParseFloat(s, 64) succeeds for a string that starts with '.' (underscores only between digits). */
function isDotFloat(s: string): boolean {
  return DOT_FLOAT.test(s) && Number.isFinite(Number(s.replaceAll("_", "")));
}

const GO_INT = /^([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|0([0-7]*)|([1-9][0-9]*))$/;
const YAML_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const SIGNED_BINARY = /^0b([-+]?)([01]+)$/;

/**
 * resolve.go's int and float cases, on the text without underscores: strconv.ParseInt(s, 0, 64),
 * ParseUint(s, 0, 64), a YAML-style float that ParseFloat accepts (no overflow), and the quirk
 * that "0b" followed by a signed binary number is an int too.
 */
function isNumber(s: string): boolean {
  return goNumber(s) !== undefined;
}

/**
 * The number go-yaml (v2 and v3 alike) reads from a plain scalar that starts with a digit or a
 * sign, or undefined when it reads a string: `0644` is octal (420), `1_000` is 1000, `0b11` and
 * `-0x1F` are numbers, where YAML 1.2's core schema reads 644 and three strings. kubectl, Helm,
 * Argo CD, kustomize and `crossplane render` all read manifests through go-yaml.
 */
export function goNumber(s: string): number | undefined {
  const plain = s.includes("_") ? s.replaceAll("_", "") : s;
  const int = GO_INT.exec(plain);
  if (int) {
    const [, sign, hex, oct, bin, zeroOct, dec] = int;
    const n = magnitude(hex, 16) ?? magnitude(oct, 8) ?? magnitude(bin, 2) ?? magnitude(zeroOct, 8) ?? BigInt(dec!);
    if (fitsGoInt(sign!, n)) return Number(sign === "-" ? -n : n);
  }
  if (YAML_FLOAT.test(plain)) {
    const f = Number(plain);
    if (Number.isFinite(f)) return f;
  }
  const bin = SIGNED_BINARY.exec(plain);
  if (bin === null || bin[1] === "") return undefined;
  const n = magnitude(bin[2], 2)!;
  return fitsGoInt(bin[1]!, n) ? Number(bin[1] === "-" ? -n : n) : undefined;
}

function magnitude(digits: string | undefined, base: 2 | 8 | 16): bigint | undefined {
  if (digits === undefined) return undefined;
  if (digits === "") return 0n;
  return BigInt(`0${base === 16 ? "x" : base === 8 ? "o" : "b"}${digits}`);
}

const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** ParseInt's range, or ParseUint's when there is no sign. */
function fitsGoInt(sign: string, n: bigint): boolean {
  if (sign === "-") return n <= INT64_MAX + 1n;
  return n <= (sign === "+" ? INT64_MAX : UINT64_MAX);
}

const BASE60 = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

function isBase60(s: string): boolean {
  return s.includes(":") && BASE60.test(s);
}

/**
 * resolve.go parseTimestamp: time.Parse with "2006-1-2T15:4:5.999999999Z07:00" (T or t),
 * "2006-1-2 15:4:5.999999999" or "2006-1-2", as recent Go (1.20+) parses them: any number of
 * fraction digits after '.' or ',', and zone offsets of two-digit hours <= 24 and minutes <= 60.
 */
function isTimestamp(s: string): boolean {
  if (!/^[0-9]{4}-/.test(s)) return false;
  const date = readDate(s);
  if (date === undefined) return false;
  if (date === s.length) return true;
  const sep = s[date];
  if (sep === "T" || sep === "t") return isTime(s, date + 1, true);
  if (sep !== " ") return false;
  let at = date;
  while (s[at] === " ") at++;
  return isTime(s, at, false);
}

/** The index after "YYYY-M-D" (one- or two-digit month and day, a valid day of the month). */
function readDate(s: string): number | undefined {
  const month = readNumber(s, 5);
  if (month === undefined || month.value < 1 || month.value > 12 || s[month.end] !== "-") return undefined;
  const day = readNumber(s, month.end + 1);
  if (day === undefined || day.value < 1 || day.value > daysIn(month.value, Number(s.slice(0, 4)))) return undefined;
  return day.end;
}

function isTime(s: string, at: number, zoned: boolean): boolean {
  const hour = readNumber(s, at);
  if (hour === undefined || hour.value > 23 || s[hour.end] !== ":") return false;
  const minute = readNumber(s, hour.end + 1);
  if (minute === undefined || minute.value > 59 || s[minute.end] !== ":") return false;
  const second = readNumber(s, minute.end + 1);
  if (second === undefined || second.value > 59) return false;
  let end = second.end;
  if ((s[end] === "." || s[end] === ",") && isAsciiDigit(s.charCodeAt(end + 1))) {
    end += 2;
    while (isAsciiDigit(s.charCodeAt(end))) end++;
  }
  if (!zoned) return end === s.length;
  return s.slice(end) === "Z" || /^[-+](?:[01][0-9]|2[0-4]):(?:[0-5][0-9]|60)$/.test(s.slice(end));
}

/** time.getnum(s, false): one digit, or two when a second digit follows. */
function readNumber(s: string, at: number): { value: number; end: number } | undefined {
  if (!isAsciiDigit(s.charCodeAt(at))) return undefined;
  if (!isAsciiDigit(s.charCodeAt(at + 1))) return { value: s.charCodeAt(at) - 0x30, end: at + 1 };
  return { value: Number(s.slice(at, at + 2)), end: at + 2 };
}

function isAsciiDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function daysIn(month: number, year: number): number {
  if (month !== 2) return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}
