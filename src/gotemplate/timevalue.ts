import { LOCAL, UTC, addDuration, civil, dayName, durationString, formatTime, monthName, timeString, type Instant } from "../go/time.js";
import { GoFunc, GoNum, GoStruct, T, float64, type CallContext, type GoType, type Value } from "../go/values.js";

/** time.Time, time.Duration, time.Month and time.Weekday as template values, with their methods. */

const timeMethods: Record<string, (recv: GoStruct) => GoFunc> = {};
export const TIME: GoType = {
  name: "time.Time",
  kind: "struct",
  fields: [],
  methods: timeMethods,
  stringer: (v: GoStruct) => timeString(instantOf(v)),
  json: (v: GoStruct) => formatTime(instantOf(v), "2006-01-02T15:04:05.999999999Z07:00"),
};
const durationMethods: Record<string, (recv: GoStruct) => GoFunc> = {};
export const DURATION: GoType = {
  name: "time.Duration",
  kind: "int64",
  methods: durationMethods,
  stringer: (v: GoNum) => durationString(v.value),
};
const MONTH: GoType = { name: "time.Month", kind: "int", stringer: (v: GoNum) => monthName(v.value) };
const WEEKDAY: GoType = { name: "time.Weekday", kind: "int", stringer: (v: GoNum) => dayName(v.value) };

const instants = new WeakMap<GoStruct, Instant>();
export function timeValue(t: Instant): GoStruct {
  const s = new GoStruct(TIME, {});
  instants.set(s, t);
  return s;
}
export const instantOf = (v: Value): Instant => instants.get(v as GoStruct) ?? { sec: -62135596800, nsec: 0, zone: UTC };
const duration = (ns: number) => new GoNum(DURATION, ns);
const num = (v: Value) => (v instanceof GoNum ? v.value : (v as number));

export function nowInstant(ctx: CallContext): Instant {
  const ms = ctx.now();
  return { sec: Math.floor(ms / 1000), nsec: (ms % 1000) * 1e6, zone: LOCAL };
}

const m = (params: GoType[], result: GoType, impl: (t: Instant, args: Value[]) => Value) => (recv: GoStruct) =>
  new GoFunc({ params, result }, (args) => impl(instantOf(recv), args));

Object.assign(timeMethods, {
  Unix: m([], T.int64, (t) => t.sec),
  UnixMilli: m([], T.int64, (t) => t.sec * 1000 + Math.floor(t.nsec / 1e6)),
  UnixNano: m([], T.int64, (t) => t.sec * 1e9 + t.nsec),
  Format: m([T.string], T.string, (t, [l]) => formatTime(t, l as string)),
  String: m([], T.string, (t) => timeString(t)),
  UTC: m([], TIME, (t) => timeValue({ ...t, zone: UTC })),
  Local: m([], TIME, (t) => timeValue({ ...t, zone: LOCAL })),
  Year: m([], T.int, (t) => civil(t).year),
  Month: m([], MONTH, (t) => new GoNum(MONTH, civil(t).month)),
  Day: m([], T.int, (t) => civil(t).day),
  Hour: m([], T.int, (t) => civil(t).hour),
  Minute: m([], T.int, (t) => civil(t).min),
  Second: m([], T.int, (t) => civil(t).sec),
  Nanosecond: m([], T.int, (t) => t.nsec),
  YearDay: m([], T.int, (t) => civil(t).yday),
  Weekday: m([], WEEKDAY, (t) => new GoNum(WEEKDAY, civil(t).weekday)),
  IsZero: m([], T.bool, (t) => t.sec === -62135596800 && t.nsec === 0),
  Add: m([DURATION], TIME, (t, [d]) => timeValue(addDuration(t, num(d)))),
  AddDate: m([T.int, T.int, T.int], TIME, (t, [y, mo, d]) => {
    const c = civil(t);
    const ms = Date.UTC(c.year + num(y), c.month - 1 + num(mo), c.day + num(d), c.hour, c.min, c.sec);
    return timeValue({ sec: ms / 1000 - c.offset, nsec: t.nsec, zone: t.zone });
  }),
  Sub: m([TIME], DURATION, (t, [u]) => duration((t.sec - instantOf(u).sec) * 1e9 + (t.nsec - instantOf(u).nsec))),
  Before: m([TIME], T.bool, (t, [u]) => cmpInstant(t, instantOf(u)) < 0),
  After: m([TIME], T.bool, (t, [u]) => cmpInstant(t, instantOf(u)) > 0),
  Equal: m([TIME], T.bool, (t, [u]) => cmpInstant(t, instantOf(u)) === 0),
});

const dm = (params: GoType[], result: GoType, impl: (d: number, args: Value[]) => Value) => (recv: GoNum) =>
  new GoFunc({ params, result }, (args) => impl(recv.value, args));
Object.assign(durationMethods, {
  Hours: dm([], T.float64, (d) => float64(d / 3600e9)),
  Minutes: dm([], T.float64, (d) => float64(d / 60e9)),
  Seconds: dm([], T.float64, (d) => float64(d / 1e9)),
  Milliseconds: dm([], T.int64, (d) => Math.trunc(d / 1e6)),
  String: dm([], T.string, (d) => durationString(d)),
  Round: dm([DURATION], DURATION, (d, [r]) => duration(roundDuration(d, num(r)))),
});

function cmpInstant(a: Instant, b: Instant): number {
  return a.sec !== b.sec ? a.sec - b.sec : a.nsec - b.nsec;
}

/** Duration.Round */
export function roundDuration(d: number, m: number): number {
  if (m <= 0) return d;
  let r = d % m;
  if (d < 0) {
    r = -r;
    return r + r < m ? d + r : d + r - m;
  }
  return r + r < m ? d - r : d + m - r;
}
