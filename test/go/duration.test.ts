import { describe, expect, it } from "vitest";
import { DurationError, formatDuration, parseDuration } from "../../src/go/duration.js";

/** Go's time.ParseDuration and Duration.String (cases of Go's time package tests), in nanoseconds. */
const S = 1e9;
const MS = 1e6;

describe("time.ParseDuration", () => {
  it.each([
    ["0", 0],
    ["5s", 5 * S],
    ["30s", 30 * S],
    ["1478s", 1478 * S],
    ["-5s", -5 * S],
    ["+5s", 5 * S],
    ["-0", 0],
    ["+0", 0],
    ["5.0s", 5 * S],
    ["5.6s", 5 * S + 600 * MS],
    ["5.s", 5 * S],
    [".5s", 500 * MS],
    ["1.004s", S + 4 * MS],
    ["100.00100s", 100 * S + MS],
    ["10ns", 10],
    ["11us", 11e3],
    ["12µs", 12e3],
    ["12μs", 12e3],
    ["13ms", 13 * MS],
    ["14s", 14 * S],
    ["15m", 15 * 60 * S],
    ["16h", 16 * 3600 * S],
    ["3h30m", 3.5 * 3600 * S],
    ["10.5s4m", 4 * 60 * S + 10.5 * S],
    ["-2m3.4s", -(123 * S + 400 * MS)],
    ["1h2m3s4ms5us6ns", 3723 * S + 4 * MS + 5e3 + 6],
  ])("%s", (text, want) => expect(parseDuration(text)).toBe(want));

  it.each(["", "3", "-", "s", ".", "-.", ".s", "+.s", "1d", "1.5x", "9223372036854775810ns"])("refuses %j as Go does", (text) => {
    expect(() => parseDuration(text)).toThrow(DurationError);
  });

  it("says what Go says", () => {
    expect(() => parseDuration("3")).toThrow('time: missing unit in duration "3"');
    expect(() => parseDuration("1d")).toThrow('time: unknown unit "d" in duration "1d"');
    expect(() => parseDuration("")).toThrow('time: invalid duration ""');
  });
});

describe("Duration.String", () => {
  it.each([
    [0, "0s"],
    [1, "1ns"],
    [1100, "1.1µs"],
    [2200e3, "2.2ms"],
    [3300 * MS, "3.3s"],
    [245 * S, "4m5s"],
    [245 * S + MS, "4m5.001s"],
    [(5 * 3600 + 6 * 60 + 7) * S + MS, "5h6m7.001s"],
    [480 * S + 1, "8m0.000000001s"],
    [-1500 * MS, "-1.5s"],
  ])("%d → %s", (ns, want) => expect(formatDuration(ns)).toBe(want));
});
