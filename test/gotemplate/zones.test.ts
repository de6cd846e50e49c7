import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { Template } from "../../src/gotemplate/index.js";
import { sprigFuncs } from "../../src/gotemplate/sprig/index.js";

/** Zone abbreviations come from the system's tzdata, as Go reads them; the expected texts are Go's. */

const HAS_TZDATA = fs.existsSync("/usr/share/zoneinfo/Europe/Paris");
if (!HAS_TZDATA) console.log("skipping zone abbreviation tests: no /usr/share/zoneinfo on this machine");

const inZone = (sec: number, zone: string) =>
  new Template("t").funcs(sprigFuncs()).parse(`{{ dateInZone "2006-01-02 15:04 MST -0700" ${sec} "${zone}" }}`).execute(null);

describe.skipIf(!HAS_TZDATA)("zone abbreviations", () => {
  const cases: [number, string, string][] = [
    [0, "Europe/London", "1970-01-01 01:00 BST +0100"],
    [1736899200, "Europe/London", "2025-01-15 00:00 GMT +0000"],
    [1560458379, "Europe/Paris", "2019-06-13 22:39 CEST +0200"],
    [4102444800, "Europe/Paris", "2100-01-01 01:00 CET +0100"],
    [0, "Europe/Istanbul", "1970-01-01 02:00 EET +0200"],
    [1751328000, "Europe/Istanbul", "2025-07-01 03:00 +03 +0300"],
    [1751328000, "Asia/Kolkata", "2025-07-01 05:30 IST +0530"],
    [1751328000, "Asia/Colombo", "2025-07-01 05:30 +0530 +0530"],
    [1736899200, "Australia/Sydney", "2025-01-15 11:00 AEDT +1100"],
    [1560458379, "America/New_York", "2019-06-13 16:39 EDT -0400"],
  ];
  for (const [sec, zone, want] of cases) it(`${zone} at ${sec}`, () => expect(inZone(sec, zone)).toBe(want));
});
