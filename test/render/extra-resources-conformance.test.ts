import fs from "node:fs";
import path from "node:path";
import { RunFunctionRequest } from "@crossplane-org/function-sdk-typescript";
import { describe, expect, it } from "vitest";
import { runExtraResources } from "../../src/render/functions/extra-resources.js";
import { sortRequiredByFieldPath } from "../../src/render/functions/environment-configs.js";
import { HAS_SHARED, SHARED, describeShared } from "../helpers.js";
import { responseJson, withoutMessages } from "../gotemplate/protojson.js";

/** function-extra-resources' TestRunFunction and TestSortExtrasByFieldPath cases. */

const DIR = path.join(SHARED, "conformance/extra-resources");
const load = (file: string): any[] => (HAS_SHARED ? JSON.parse(fs.readFileSync(path.join(DIR, file), "utf8")) : []);

describeShared("function-extra-resources (../shared/conformance/extra-resources)", () => {
  describe("fn.json", () => {
    for (const c of load("fn.json")) {
      it(c.name, () => {
        const rsp = responseJson(runExtraResources(RunFunctionRequest.fromJSON(c.request)));
        expect(c.ignoreResultMessages ? withoutMessages(rsp) : rsp, c.reason).toEqual(c.want.response);
      });
    }
  });
  describe("sort.json", () => {
    for (const c of load("sort.json")) {
      it(c.name, () => {
        if (c.wantErr) expect(() => sortRequiredByFieldPath(c.resources, c.path)).toThrow();
        else expect(sortRequiredByFieldPath(c.resources, c.path)).toEqual(c.want);
      });
    }
  });
});
