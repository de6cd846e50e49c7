import fs from "node:fs";

/**
 * Zone abbreviations as Go prints them ("CET", "IST", "+03"), from the system's tzdata files
 * (TZif), which is where Go reads them too. Intl knows few abbreviations outside the US, so the
 * offsets still come from Intl and only the names from here.
 */

const ZONEINFO = "/usr/share/zoneinfo";
const VALID_NAME = /^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+)*$/;

interface ZoneType {
  offset: number;
  dst: boolean;
  abbr: string;
}

interface ZoneData {
  /** Transition instants (seconds) and the type in force from each. */
  times: number[];
  typeAt: number[];
  types: ZoneType[];
  /** The POSIX TZ rule for instants after the last transition, reduced to its names and offsets. */
  rule?: { std: ZoneType; dst?: ZoneType };
}

const cache = new Map<string, ZoneData | undefined>();

/** The abbreviation Go prints for `name` at `sec`, given the offset in force; undefined when the tzdata file is not there. */
export function tzAbbreviation(name: string, sec: number, offset: number): string | undefined {
  if (!VALID_NAME.test(name)) return undefined;
  if (!cache.has(name)) cache.set(name, load(name));
  const z = cache.get(name);
  if (!z) return undefined;
  const n = z.times.length;
  if (z.rule && (n === 0 || sec >= z.times[n - 1])) {
    return z.rule.dst && offset === z.rule.dst.offset && offset !== z.rule.std.offset ? z.rule.dst.abbr : z.rule.std.abbr;
  }
  if (n === 0 || sec < z.times[0]) return firstType(z)?.abbr;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (z.times[mid] <= sec) lo = mid;
    else hi = mid - 1;
  }
  return z.types[z.typeAt[lo]]?.abbr;
}

/** Go's lookupFirstZone: the type in force before the first transition. */
function firstType(z: ZoneData): ZoneType | undefined {
  if (!z.typeAt.includes(0)) return z.types[0];
  const first = z.typeAt[0];
  if (z.types[first]?.dst) {
    for (let i = first - 1; i >= 0; i--) if (!z.types[i].dst) return z.types[i];
  }
  return z.types.find((t) => !t.dst) ?? z.types[0];
}

function load(name: string): ZoneData | undefined {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(`${ZONEINFO}/${name}`);
  } catch {
    return undefined;
  }
  try {
    return parse(buf);
  } catch {
    return undefined;
  }
}

function parse(buf: Buffer): ZoneData | undefined {
  if (buf.toString("latin1", 0, 4) !== "TZif") return undefined;
  const version = buf[4];
  const counts = (at: number) => ({
    isut: buf.readUInt32BE(at + 20),
    isstd: buf.readUInt32BE(at + 24),
    leap: buf.readUInt32BE(at + 28),
    time: buf.readUInt32BE(at + 32),
    type: buf.readUInt32BE(at + 36),
    char: buf.readUInt32BE(at + 40),
  });
  let c = counts(0);
  let at = 44;
  let timeSize = 4;
  if (version >= 0x32) {
    at += c.time * 5 + c.type * 6 + c.char + c.leap * 8 + c.isstd + c.isut;
    c = counts(at);
    at += 44;
    timeSize = 8;
  }
  const times: number[] = [];
  for (let i = 0; i < c.time; i++, at += timeSize) times.push(timeSize === 8 ? Number(buf.readBigInt64BE(at)) : buf.readInt32BE(at));
  const typeAt = [...buf.subarray(at, at + c.time)];
  at += c.time;
  const raw: { offset: number; dst: boolean; idx: number }[] = [];
  for (let i = 0; i < c.type; i++, at += 6) raw.push({ offset: buf.readInt32BE(at), dst: buf[at + 4] !== 0, idx: buf[at + 5] });
  const chars = buf.toString("latin1", at, at + c.char);
  at += c.char + c.leap * (timeSize + 4) + c.isstd + c.isut;
  const types = raw.map((t) => ({ offset: t.offset, dst: t.dst, abbr: chars.slice(t.idx, chars.indexOf("\0", t.idx) >>> 0) }));
  const footer = timeSize === 8 ? buf.toString("latin1", at).split("\n")[1] : undefined;
  return { times, typeAt, types, rule: footer ? parseRule(footer) : undefined };
}

/** The names and offsets of a POSIX TZ string ("CET-1CEST,M3.5.0,M10.5.0/3", "<+03>-3"). */
function parseRule(tz: string): ZoneData["rule"] {
  let s = tz;
  const name = (): string | undefined => {
    const m = /^<([^>]*)>/.exec(s) ?? /^([A-Za-z]{3,})/.exec(s);
    if (!m) return undefined;
    s = s.slice(m[0].length);
    return m[1];
  };
  const offset = (): number | undefined => {
    const m = /^([+-]?)(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?/.exec(s);
    if (!m) return undefined;
    s = s.slice(m[0].length);
    const west = Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
    return m[1] === "-" ? west : -west;
  };
  const stdName = name();
  const stdOffset = offset();
  if (stdName === undefined || stdOffset === undefined) return undefined;
  const std = { abbr: stdName, offset: stdOffset, dst: false };
  const dstName = name();
  if (dstName === undefined) return { std };
  return { std, dst: { abbr: dstName, offset: offset() ?? stdOffset + 3600, dst: true } };
}
