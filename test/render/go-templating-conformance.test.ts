import fs from "node:fs";
import path from "node:path";
import { RunFunctionRequest } from "@crossplane-org/function-sdk-typescript";
import { expect, it } from "vitest";
import { memoryFileSystem } from "../../src/render/functions/go-templating/filesystem.js";
import { runGoTemplating } from "../../src/render/functions/go-templating/function.js";
import { HAS_SHARED, SHARED, describeShared } from "../helpers.js";
import { responseJson } from "../gotemplate/protojson.js";

/** function-go-templating's TestRunFunction cases, whole responses compared. */

interface Case {
  name: string;
  reason?: string;
  config?: { defaultSource?: string; defaultOptions?: string };
  request: unknown;
  want: { response: Record<string, unknown> };
  files?: Record<string, string>;
}

/** Cases this implementation skips, with the reason (docs/gotemplate.md). Aim: none. */
const SKIPPED: Record<string, string> = {};

const cases: Case[] = HAS_SHARED ? JSON.parse(fs.readFileSync(path.join(SHARED, "conformance/go-templating/fn.json"), "utf8")) : [];

describeShared("function-go-templating TestRunFunction (../shared/conformance/go-templating/fn.json)", () => {
  for (const c of cases) {
    if (SKIPPED[c.name]) {
      it.skip(`${c.name} (skipped: ${SKIPPED[c.name]})`, () => {});
      continue;
    }
    it(c.name, () => {
      const rsp = runGoTemplating(RunFunctionRequest.fromJSON(c.request), {
        defaultSource: c.config?.defaultSource,
        defaultOptions: c.config?.defaultOptions,
        fileSystem: c.files ? memoryFileSystem(c.files) : undefined,
      });
      expect(responseJson(rsp), c.reason).toEqual(c.want.response);
    });
  }
});
