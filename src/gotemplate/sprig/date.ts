import { LOCAL, UTC, addDuration, durationString, formatTime, loadLocation, parseDuration, parseTime, since, type Instant } from "../../go/time.js";
import { TIME, instantOf, nowInstant, roundDuration, timeValue } from "../timevalue.js";
import { GoNum, GoStruct, T, type CallContext, type Value } from "../../go/values.js";
import { fn } from "./cast.js";

/**
 * sprig's date.go. `now` is the execution's clock (fixed unless the caller sets it); the local
 * zone is UTC, as in a function's container.
 */

/** The time a sprig date function reads from its argument (time.Now() for anything else). */
function timeArg(date: Value, ctx: CallContext, ints: readonly string[]): Instant {
  if (date instanceof GoStruct && date.type === TIME) return instantOf(date);
  if (typeof date === "number" && Number.isInteger(date) && ints.includes("int64")) return { sec: date, nsec: 0, zone: LOCAL };
  if (date instanceof GoNum && ints.includes(date.type.name)) return { sec: date.value, nsec: 0, zone: LOCAL };
  return nowInstant(ctx);
}

function dateInZone(layout: string, date: Value, zone: string, ctx: CallContext): string {
  const t = timeArg(date, ctx, ["int64", "int", "int32"]);
  let loc;
  try {
    loc = loadLocation(zone);
  } catch {
    loc = UTC;
  }
  return formatTime({ ...t, zone: loc }, layout);
}

function ago(date: Value, ctx: CallContext): string {
  const t = timeArg(date, ctx, ["int64", "int"]);
  return durationString(roundDuration(since(t, ctx.now()), 1e9));
}

function durationRound(v: Value, ctx: CallContext): string {
  let d = 0;
  if (typeof v === "string") {
    try {
      d = parseDuration(v);
    } catch {
      d = 0;
    }
  } else if (typeof v === "number" && Number.isInteger(v)) d = v;
  else if (v instanceof GoStruct && v.type === TIME) d = since(instantOf(v), ctx.now());
  const u = Math.abs(d);
  const year = 3600e9 * 24 * 365;
  const month = 3600e9 * 24 * 30;
  const day = 3600e9 * 24;
  if (u > year) return Math.floor(u / year) + "y";
  if (u > month) return Math.floor(u / month) + "mo";
  if (u > day) return Math.floor(u / day) + "d";
  if (u > 3600e9) return Math.floor(u / 3600e9) + "h";
  if (u > 60e9) return Math.floor(u / 60e9) + "m";
  if (u > 1e9) return Math.floor(u / 1e9) + "s";
  return "0s";
}

const S = T.string;
const A = T.any;

const dateModify = (must: boolean) =>
  fn(
    [S, TIME],
    TIME,
    ([f, t]) => {
      try {
        return timeValue(addDuration(instantOf(t), parseDuration(f as string)));
      } catch (err) {
        if (must) throw err;
        return t;
      }
    },
    { error: must },
  );

const toDate = (must: boolean) =>
  fn(
    [S, S],
    TIME,
    ([f, s]) => {
      try {
        return timeValue(parseTime(f as string, s as string, LOCAL));
      } catch (err) {
        if (must) throw err;
        return timeValue({ sec: -62135596800, nsec: 0, zone: UTC });
      }
    },
    { error: must },
  );

export const dateFuncs = {
  ago: fn([A], S, ([d], ctx) => ago(d, ctx)),
  date: fn([S, A], S, ([f, d], ctx) => dateInZone(f as string, d, "Local", ctx)),
  date_in_zone: fn([S, A, S], S, ([f, d, z], ctx) => dateInZone(f as string, d, z as string, ctx)),
  dateInZone: fn([S, A, S], S, ([f, d, z], ctx) => dateInZone(f as string, d, z as string, ctx)),
  date_modify: dateModify(false),
  dateModify: dateModify(false),
  mustDateModify: dateModify(true),
  must_date_modify: dateModify(true),
  duration: fn([A], S, ([v]) => {
    let n = 0;
    if (typeof v === "string") n = /^[+-]?\d+$/.test(v) ? Number(v) : 0;
    else if (typeof v === "number" && Number.isInteger(v)) n = v;
    return durationString(n * 1e9);
  }),
  durationRound: fn([A], S, ([v], ctx) => durationRound(v, ctx)),
  htmlDate: fn([A], S, ([d], ctx) => dateInZone("2006-01-02", d, "Local", ctx)),
  htmlDateInZone: fn([A, S], S, ([d, z], ctx) => dateInZone("2006-01-02", d, z as string, ctx)),
  mustToDate: toDate(true),
  toDate: toDate(false),
  now: fn([], TIME, (_a, ctx) => timeValue(nowInstant(ctx))),
  unixEpoch: fn([TIME], S, ([t]) => String(instantOf(t).sec)),
};
