import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { HAS_SHARED, REPO, SHARED, runCli, describeShared } from "../helpers.js";
import { withoutMessages } from "../gotemplate/protojson.js";

/**
 * The upstream TestRunFunction tables again, through the command line this time: each request as
 * protobuf JSON on `composition-ci function run <name>`'s stdin, the response it prints compared
 * whole. Cases that need a function configuration or files (which the command cannot take) are
 * the in-process tests' alone.
 */

const SETS: [string, string][] = [
  ["function-go-templating", "go-templating/fn.json"],
  ["function-environment-configs", "environment-configs/fn.json"],
  ["function-extra-resources", "extra-resources/fn.json"],
  ["function-cel-filter", "cel-filter/fn.json"],
];

async function functionRun(name: string, request: unknown): Promise<{ code: number; response: Record<string, any> }> {
  const { code, stdout } = await runCli(["function", "run", name], REPO, JSON.stringify(request));
  return { code, response: JSON.parse(stdout) as Record<string, any> };
}

describeShared("composition-ci function run answers the upstream tables (../shared/conformance)", () => {
  for (const [name, file] of SETS) {
    const cases: any[] = HAS_SHARED ? JSON.parse(fs.readFileSync(path.join(SHARED, "conformance", file), "utf8")) : [];
    const runnable = cases.filter((c) => !c.config && !c.files);
    it(`${name}: ${runnable.length} of ${cases.length} cases through the CLI`, async () => {
      expect(runnable.length).toBeGreaterThan(0);
      for (const c of runnable) {
        const { code, response } = await functionRun(name, c.request);
        expect(code, c.name).toBe(0);
        expect(c.ignoreResultMessages ? withoutMessages(response) : response, `${c.name}: ${c.reason ?? ""}`).toEqual(c.want.response);
      }
    });
  }
});
