import { tzAbbreviation } from "./tzif.js";
import { GoError } from "./values.js";
import { DurationError, formatDuration, parseDuration as parseGoDuration } from "./duration.js";

/**
 * Go's time package as sprig uses it: instants in a zone, layouts ("2006-01-02 15:04:05"),
 * durations. The local zone is UTC (as in a function's container); other zones come from the
 * platform's IANA database through Intl, their abbreviations from the system's tzdata files as Go
 * reads them (Intl's, where those files are absent).
 */

export interface Zone {
  /** "UTC", "Local", an IANA name, or "" for a fixed offset from parsing. */
  name: string;
  fixed?: { abbr: string; offset: number };
}

export interface Instant {
  /** Seconds since the epoch (integral). */
  sec: number;
  /** Nanoseconds within the second. */
  nsec: number;
  zone: Zone;
}

export const UTC: Zone = { name: "UTC" };
export const LOCAL: Zone = { name: "Local" };

const zoneCache = new Map<string, Intl.DateTimeFormat>();

function zoneFormat(name: string): Intl.DateTimeFormat {
  let f = zoneCache.get(name);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: name,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      timeZoneName: "short",
    });
    zoneCache.set(name, f);
  }
  return f;
}

/** time.LoadLocation */
export function loadLocation(name: string): Zone {
  if (name === "" || name === "UTC") return UTC;
  if (name === "Local") return LOCAL;
  try {
    zoneFormat(name);
  } catch {
    throw new GoError(`unknown time zone ${name}`);
  }
  return { name };
}

/** The zone's offset (seconds east of UTC) and abbreviation at an instant. */
export function zoneAt(zone: Zone, sec: number): { offset: number; abbr: string } {
  if (zone.fixed) return zone.fixed;
  if (zone.name === "UTC" || zone.name === "Local") return { offset: 0, abbr: "UTC" };
  const parts = zoneFormat(zone.name).formatToParts(new Date(sec * 1000));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  const asUtc = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
  const offset = Math.round((asUtc - sec * 1000) / 1000);
  let abbr = tzAbbreviation(zone.name, sec, offset) ?? parts.find((p) => p.type === "timeZoneName")?.value ?? "";
  // without tzdata files: tzdata names zones without a letter abbreviation by their offset ("+03"), which Intl words "GMT+3"
  if (/^GMT[+-]/.test(abbr) || abbr === "") abbr = formatOffsetAbbr(offset);
  return { offset, abbr };
}

function formatOffsetAbbr(offset: number): string {
  const sign = offset < 0 ? "-" : "+";
  const a = Math.abs(offset);
  const h = Math.floor(a / 3600);
  const m = Math.floor((a % 3600) / 60);
  return sign + String(h).padStart(2, "0") + (m ? String(m).padStart(2, "0") : "");
}

interface Civil {
  year: number;
  month: number;
  day: number;
  hour: number;
  min: number;
  sec: number;
  nsec: number;
  weekday: number;
  yday: number;
  offset: number;
  abbr: string;
}

export function civil(t: Instant): Civil {
  const { offset, abbr } = zoneAt(t.zone, t.sec);
  const d = new Date((t.sec + offset) * 1000);
  const year = d.getUTCFullYear();
  const start = Date.UTC(year, 0, 1);
  return {
    year,
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    min: d.getUTCMinutes(),
    sec: d.getUTCSeconds(),
    nsec: t.nsec,
    weekday: d.getUTCDay(),
    yday: Math.floor((d.getTime() - start) / 86400000) + 1,
    offset,
    abbr,
  };
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

export const monthName = (m: number) => MONTHS[m - 1] ?? `%!Month(${m})`;
export const dayName = (d: number) => DAYS[d] ?? `%!Weekday(${d})`;

type Chunk =
  | "January"
  | "Jan"
  | "Monday"
  | "Mon"
  | "MST"
  | "01"
  | "1"
  | "02"
  | "2"
  | "_2"
  | "002"
  | "__2"
  | "15"
  | "3"
  | "03"
  | "4"
  | "04"
  | "5"
  | "05"
  | "06"
  | "2006"
  | "PM"
  | "pm"
  | "-070000"
  | "-07:00:00"
  | "-0700"
  | "-07:00"
  | "-07"
  | "Z070000"
  | "Z07:00:00"
  | "Z0700"
  | "Z07:00"
  | "Z07"
  | { frac: "0" | "9"; n: number; sep: string };

const STD_PREFIXES: Chunk[] = [
  "January",
  "Jan",
  "Monday",
  "Mon",
  "MST",
  "-07:00:00",
  "-070000",
  "-07:00",
  "-0700",
  "-07",
  "Z07:00:00",
  "Z070000",
  "Z07:00",
  "Z0700",
  "Z07",
  "2006",
  "002",
  "__2",
  "_2",
  "15",
  "01",
  "02",
  "03",
  "04",
  "05",
  "06",
  "PM",
  "pm",
];

/** Go's nextStdChunk: [prefix text, chunk, rest]. */
function nextChunk(layout: string): [string, Chunk | undefined, string] {
  for (let i = 0; i < layout.length; i++) {
    const c = layout[i];
    const rest = layout.slice(i);
    switch (c) {
      case "J":
        if (rest.startsWith("Jan")) return [layout.slice(0, i), rest.startsWith("January") ? "January" : "Jan", rest.slice(rest.startsWith("January") ? 7 : 3)];
        break;
      case "M":
        if (rest.startsWith("Mon")) {
          if (rest.startsWith("Monday")) return [layout.slice(0, i), "Monday", rest.slice(6)];
          if (!/^Mon[a-z]/.test(rest)) return [layout.slice(0, i), "Mon", rest.slice(3)];
        }
        if (rest.startsWith("MST")) return [layout.slice(0, i), "MST", rest.slice(3)];
        break;
      case "0":
        if (/^0[1-6]/.test(rest)) return [layout.slice(0, i), rest.slice(0, 2) as Chunk, rest.slice(2)];
        if (rest.startsWith("002")) return [layout.slice(0, i), "002", rest.slice(3)];
        break;
      case "1":
        if (rest.startsWith("15")) return [layout.slice(0, i), "15", rest.slice(2)];
        return [layout.slice(0, i), "1", rest.slice(1)];
      case "2":
        if (rest.startsWith("2006")) return [layout.slice(0, i), "2006", rest.slice(4)];
        return [layout.slice(0, i), "2", rest.slice(1)];
      case "_":
        if (rest.startsWith("_2")) {
          if (rest.startsWith("_2006")) return [layout.slice(0, i + 1), "2006", rest.slice(5)];
          return [layout.slice(0, i), "_2", rest.slice(2)];
        }
        if (rest.startsWith("__2")) return [layout.slice(0, i), "__2", rest.slice(3)];
        break;
      case "3":
      case "4":
      case "5":
        return [layout.slice(0, i), c as Chunk, rest.slice(1)];
      case "P":
        if (rest.startsWith("PM")) return [layout.slice(0, i), "PM", rest.slice(2)];
        break;
      case "p":
        if (rest.startsWith("pm")) return [layout.slice(0, i), "pm", rest.slice(2)];
        break;
      case "-":
      case "Z":
        for (const p of STD_PREFIXES) if (typeof p === "string" && p[0] === c && rest.startsWith(p)) return [layout.slice(0, i), p, rest.slice(p.length)];
        break;
      case ".":
      case ",":
        if (i + 1 < layout.length && (layout[i + 1] === "0" || layout[i + 1] === "9")) {
          const ch = layout[i + 1];
          let j = i + 1;
          while (j < layout.length && layout[j] === ch) j++;
          if (!(j < layout.length && /[0-9]/.test(layout[j]))) {
            return [layout.slice(0, i), { frac: ch as "0" | "9", n: j - (i + 1), sep: c }, layout.slice(j)];
          }
        }
        break;
    }
  }
  return [layout, undefined, ""];
}

const pad = (n: number, w: number) => String(Math.abs(n)).padStart(w, "0");

function formatOffset(offset: number, chunk: string): string {
  if (chunk.startsWith("Z") && offset === 0) return "Z";
  const sign = offset < 0 ? "-" : "+";
  const a = Math.abs(offset);
  const h = pad(Math.floor(a / 3600), 2);
  const m = pad(Math.floor((a % 3600) / 60), 2);
  const s = pad(a % 60, 2);
  const body = chunk.replace(/^Z/, "-");
  switch (body) {
    case "-07":
      return sign + h;
    case "-0700":
      return sign + h + m;
    case "-07:00":
      return sign + h + ":" + m;
    case "-070000":
      return sign + h + m + s;
    default:
      return sign + h + ":" + m + ":" + s;
  }
}

/** Time.Format */
export function formatTime(t: Instant, layout: string): string {
  const c = civil(t);
  let out = "";
  let rest = layout;
  while (rest !== "") {
    const [prefix, chunk, after] = nextChunk(rest);
    out += prefix;
    if (chunk === undefined) break;
    rest = after;
    if (typeof chunk === "object") {
      let digits = pad(c.nsec, 9).slice(0, chunk.n);
      if (chunk.frac === "9") {
        digits = digits.replace(/0+$/, "");
        if (digits !== "") out += chunk.sep + digits;
      } else out += chunk.sep + digits;
      continue;
    }
    switch (chunk) {
      case "2006":
        out += c.year < 0 ? "-" + pad(c.year, 4) : pad(c.year, 4);
        break;
      case "06":
        out += pad(c.year % 100, 2);
        break;
      case "January":
        out += monthName(c.month);
        break;
      case "Jan":
        out += monthName(c.month).slice(0, 3);
        break;
      case "01":
        out += pad(c.month, 2);
        break;
      case "1":
        out += String(c.month);
        break;
      case "Monday":
        out += dayName(c.weekday);
        break;
      case "Mon":
        out += dayName(c.weekday).slice(0, 3);
        break;
      case "02":
        out += pad(c.day, 2);
        break;
      case "2":
        out += String(c.day);
        break;
      case "_2":
        out += String(c.day).padStart(2, " ");
        break;
      case "002":
        out += pad(c.yday, 3);
        break;
      case "__2":
        out += String(c.yday).padStart(3, " ");
        break;
      case "15":
        out += pad(c.hour, 2);
        break;
      case "3":
        out += String(c.hour % 12 === 0 ? 12 : c.hour % 12);
        break;
      case "03":
        out += pad(c.hour % 12 === 0 ? 12 : c.hour % 12, 2);
        break;
      case "4":
        out += String(c.min);
        break;
      case "04":
        out += pad(c.min, 2);
        break;
      case "5":
        out += String(c.sec);
        break;
      case "05":
        out += pad(c.sec, 2);
        break;
      case "PM":
        out += c.hour >= 12 ? "PM" : "AM";
        break;
      case "pm":
        out += c.hour >= 12 ? "pm" : "am";
        break;
      case "MST":
        out += c.abbr;
        break;
      default:
        out += formatOffset(c.offset, chunk);
    }
  }
  return out;
}

/** Time.String: "2006-01-02 15:04:05.999999999 -0700 MST" */
export const timeString = (t: Instant) => formatTime(t, "2006-01-02 15:04:05.999999999 -0700 MST");

/** time.ParseInLocation for the layout elements above; throws GoError with Go's message. */
export function parseTime(layout: string, value: string, loc: Zone): Instant {
  const fail = (valueElem: string, layoutElem: string, extra = "") => {
    throw new GoError(
      `parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}: cannot parse ${JSON.stringify(valueElem)} as ${JSON.stringify(layoutElem)}${extra}`,
    );
  };
  let year = 1;
  let month = 1;
  let day = 1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nsec = 0;
  let pm: boolean | undefined;
  let offset: number | undefined;
  let abbr: string | undefined;
  let v = value;
  let rest = layout;
  const num = (re: RegExp, elem: string): number => {
    const m = re.exec(v);
    if (!m) fail(v, elem);
    v = v.slice(m![0].length);
    return Number(m![0]);
  };
  while (rest !== "") {
    const [prefix, chunk, after] = nextChunk(rest);
    if (!v.startsWith(prefix)) fail(v, prefix);
    v = v.slice(prefix.length);
    if (chunk === undefined) break;
    rest = after;
    if (typeof chunk === "object") {
      if (v[0] !== chunk.sep) {
        if (chunk.frac === "9") continue;
        fail(v, chunk.sep + chunk.frac.repeat(chunk.n));
      }
      const m = /^[.,](\d+)/.exec(v)!;
      if (!m) fail(v, chunk.sep);
      nsec = Number(m[1].slice(0, 9).padEnd(9, "0"));
      v = v.slice(m[0].length);
      continue;
    }
    switch (chunk) {
      case "2006":
        year = num(/^\d{4}/, chunk);
        break;
      case "06": {
        const y = num(/^\d{2}/, chunk);
        year = y >= 69 ? 1900 + y : 2000 + y;
        break;
      }
      case "January":
      case "Jan": {
        const names = chunk === "January" ? MONTHS : MONTHS.map((m) => m.slice(0, 3));
        const i = names.findIndex((m) => v.toLowerCase().startsWith(m.toLowerCase()));
        if (i < 0) fail(v, chunk);
        month = i + 1;
        v = v.slice(names[i].length);
        break;
      }
      case "Monday":
      case "Mon": {
        const names = chunk === "Monday" ? DAYS : DAYS.map((d) => d.slice(0, 3));
        const i = names.findIndex((d) => v.toLowerCase().startsWith(d.toLowerCase()));
        if (i < 0) fail(v, chunk);
        v = v.slice(names[i].length);
        break;
      }
      case "01":
        month = num(/^\d{2}/, chunk);
        break;
      case "1":
        month = num(/^\d{1,2}/, chunk);
        break;
      case "02":
        day = num(/^\d{2}/, chunk);
        break;
      case "2":
        day = num(/^\d{1,2}/, chunk);
        break;
      case "_2":
        if (v[0] === " ") v = v.slice(1);
        day = num(/^\d{1,2}/, chunk);
        break;
      case "002":
      case "__2":
        num(/^ *\d{1,3}/, chunk);
        break;
      case "15":
        hour = num(/^\d{1,2}/, chunk);
        break;
      case "3":
      case "03":
        hour = num(chunk === "3" ? /^\d{1,2}/ : /^\d{2}/, chunk);
        break;
      case "4":
      case "04":
        min = num(chunk === "4" ? /^\d{1,2}/ : /^\d{2}/, chunk);
        break;
      case "5":
      case "05":
        sec = num(chunk === "5" ? /^\d{1,2}/ : /^\d{2}/, chunk);
        if (/^[.,]\d/.test(v) && !/^[.,][09]/.test(rest)) {
          const m = /^[.,](\d+)/.exec(v)!;
          nsec = Number(m[1].slice(0, 9).padEnd(9, "0"));
          v = v.slice(m[0].length);
        }
        break;
      case "PM":
      case "pm": {
        const p = v.slice(0, 2).toUpperCase();
        if (p !== "AM" && p !== "PM") fail(v, chunk);
        pm = p === "PM";
        v = v.slice(2);
        break;
      }
      case "MST": {
        const m = /^[A-Z]{3,5}|^[+-]\d{2,4}/.exec(v);
        if (!m) fail(v, chunk);
        abbr = m![0];
        v = v.slice(abbr.length);
        if (abbr === "UTC" || abbr === "GMT") offset = 0;
        break;
      }
      default: {
        if (chunk.startsWith("Z") && v[0] === "Z") {
          v = v.slice(1);
          offset = 0;
          break;
        }
        const m = /^([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?/.exec(v);
        if (!m) fail(v, chunk);
        const s = m![1] === "-" ? -1 : 1;
        offset = s * (Number(m![2]) * 3600 + Number(m![3] ?? 0) * 60 + Number(m![4] ?? 0));
        v = v.slice(m![0].length);
      }
    }
  }
  if (v !== "") throw new GoError(`parsing time ${JSON.stringify(value)}: extra text: ${JSON.stringify(v)}`);
  if (pm !== undefined) {
    if (pm && hour < 12) hour += 12;
    else if (!pm && hour === 12) hour = 0;
  }
  if (month < 1 || month > 12) throw new GoError(`parsing time ${JSON.stringify(value)}: month out of range`);
  if (day < 1 || day > 31) throw new GoError(`parsing time ${JSON.stringify(value)}: day out of range`);
  const local = Date.UTC(year, month - 1, day, hour, min, sec) / 1000;
  if (offset !== undefined) {
    const zone: Zone = offset === 0 && (abbr === undefined || abbr === "UTC") ? UTC : { name: "", fixed: { abbr: abbr ?? formatOffsetAbbr(offset), offset } };
    return { sec: local - offset, nsec, zone };
  }
  const guess = zoneAt(loc, local).offset;
  const off = zoneAt(loc, local - guess).offset;
  return { sec: local - off, nsec, zone: loc };
}

// ---- durations (nanoseconds, as int64) ----

export const NS = { ns: 1, us: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Duration.String */
export const durationString = formatDuration;

/** time.ParseDuration; Go's error as a template error. */
export function parseDuration(s: string): number {
  try {
    return parseGoDuration(s);
  } catch (err) {
    if (err instanceof DurationError) throw new GoError(err.message);
    throw err;
  }
}

/** t.Add(d nanoseconds) */
export function addDuration(t: Instant, d: number): Instant {
  const total = BigInt(t.sec) * 1000000000n + BigInt(t.nsec) + BigInt(Math.trunc(d));
  const sec = total / 1000000000n;
  let nsec = total % 1000000000n;
  let s = sec;
  if (nsec < 0n) {
    nsec += 1000000000n;
    s -= 1n;
  }
  return { sec: Number(s), nsec: Number(nsec), zone: t.zone };
}

/** time.Since(t) for a clock reading in milliseconds, in nanoseconds. */
export function since(t: Instant, nowMs: number): number {
  return (nowMs / 1000 - t.sec) * 1e9 - t.nsec;
}
