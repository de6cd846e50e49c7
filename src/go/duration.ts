/** Go's time.Duration: parsed and printed as Go does it, in nanoseconds (float64 here, int64 there). */

const UNITS: Record<string, bigint> = { ns: 1n, us: 1000n, µs: 1000n, μs: 1000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };
const LIMIT = 1n << 63n;

/** A text time.ParseDuration refuses, with Go's message. */
export class DurationError extends Error {}

/** time.ParseDuration, in nanoseconds: Go's algorithm on exact integers (its uint64), so overflow is where Go finds it. */
export function parseDuration(text: string): number {
  const invalid = () => new DurationError(`time: invalid duration ${JSON.stringify(text)}`);
  let s = text;
  let neg = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") throw invalid();
  let d = 0n;
  while (s !== "") {
    if (!/^[.0-9]/.test(s)) throw invalid();
    const int = /^\d*/.exec(s)![0];
    let v = 0n;
    for (const c of int) {
      if (v > LIMIT / 10n) throw invalid();
      v = v * 10n + BigInt(c);
      if (v > LIMIT) throw invalid();
    }
    s = s.slice(int.length);
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === ".") {
      const digits = /^\d*/.exec(s.slice(1))![0];
      s = s.slice(1 + digits.length);
      post = digits.length > 0;
      let overflow = false;
      for (const c of digits) {
        if (overflow) continue;
        if (f > (LIMIT - 1n) / 10n) {
          overflow = true;
          continue;
        }
        const y = f * 10n + BigInt(c);
        if (y > LIMIT) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
    }
    if (int.length === 0 && !post) throw invalid();
    const u = /^[^.0-9]*/.exec(s)![0];
    if (u === "") throw new DurationError(`time: missing unit in duration ${JSON.stringify(text)}`);
    s = s.slice(u.length);
    const unit = UNITS[u];
    if (unit === undefined) throw new DurationError(`time: unknown unit ${JSON.stringify(u)} in duration ${JSON.stringify(text)}`);
    if (v > LIMIT / unit) throw invalid();
    v *= unit;
    if (f > 0n) {
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > LIMIT) throw invalid();
    }
    d += v;
    if (d > LIMIT) throw invalid();
  }
  if (neg) return -Number(d);
  if (d > LIMIT - 1n) throw invalid();
  return Number(d);
}

/** Duration.String, of nanoseconds. */
export function formatDuration(d: number): string {
  if (d === 0) return "0s";
  const neg = d < 0;
  let u = BigInt(Math.abs(Math.trunc(d)));
  let out: string;
  if (u < 1000000000n) {
    let unit: string;
    let prec: number;
    if (u < 1000n) return (neg ? "-" : "") + u + "ns";
    if (u < 1000000n) {
      unit = "µs";
      prec = 3;
    } else {
      unit = "ms";
      prec = 6;
    }
    out = fmtFrac(u, prec) + unit;
  } else {
    const secs = fmtFrac(u % 60000000000n, 9) + "s";
    u /= 60000000000n;
    out = secs;
    if (u > 0n) {
      out = String(u % 60n) + "m" + out;
      u /= 60n;
      if (u > 0n) out = String(u) + "h" + out;
    }
  }
  return (neg ? "-" : "") + out;
}

function fmtFrac(v: bigint, prec: number): string {
  const scale = 10n ** BigInt(prec);
  const whole = v / scale;
  let frac = (v % scale).toString().padStart(prec, "0").replace(/0+$/, "");
  if (frac !== "") frac = "." + frac;
  return String(whole) + frac;
}
