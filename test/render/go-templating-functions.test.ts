import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { GoError, GoStruct, Template, callContext, isNilCollection, toPlain, type Value } from "../../src/gotemplate/index.js";
import { templateFuncs } from "../../src/render/functions/go-templating/funcs.js";
import { HAS_SHARED, SHARED, describeShared } from "../helpers.js";

/** function-go-templating's function_maps_test.go cases, called as the template calls them. */

interface Case {
  name: string;
  function: string;
  args?: Value[];
  template?: string;
  data?: Value;
  want: unknown;
  wantType?: string;
  wantErr: boolean;
}

const cases: Case[] = HAS_SHARED ? JSON.parse(fs.readFileSync(path.join(SHARED, "conformance/go-templating/cases2.json"), "utf8")) : [];

function call(c: Case): Value {
  const fn = templateFuncs(new Template("t"))[c.function];
  return fn.impl(c.args ?? [], callContext());
}

function plain(v: Value, type?: string): unknown {
  if (type === "xpv2.Condition") {
    const f = (v as GoStruct).fields;
    const out: Record<string, unknown> = { Type: f.Type, Status: f.Status };
    for (const k of ["Reason", "Message"]) if (f[k]) out[k] = f[k];
    return out;
  }
  if (type === "map[string][]byte") {
    if (isNilCollection(v)) return null;
    return Object.fromEntries(Object.entries(v as Record<string, Uint8Array>).map(([k, b]) => [k, Buffer.from(b).toString("utf8")]));
  }
  if (isNilCollection(v)) return null;
  return toPlain(v);
}

describeShared("function-go-templating function maps (../shared/conformance/go-templating/cases2.json)", () => {
  for (const c of cases) {
    it(c.name, () => {
      if (c.template !== undefined) {
        const t = new Template("");
        t.funcs({ include: templateFuncs(t).include });
        let out = "";
        let error: unknown;
        try {
          out = t.parse(c.template).execute(c.data ?? null);
        } catch (err) {
          error = err;
        }
        expect(error !== undefined, String(error)).toBe(c.wantErr);
        expect(out).toBe(c.want);
        return;
      }
      if (c.wantErr) {
        expect(() => call(c)).toThrow(GoError);
        return;
      }
      expect(plain(call(c), c.wantType)).toEqual(c.want);
    });
  }
});
