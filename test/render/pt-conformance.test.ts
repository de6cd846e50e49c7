import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GoOpaque, float64, goNumber, numberType, toPlainJson } from "../../src/render/functions/gotypes.js";
import { extractConnectionDetails, getConnectionSecretRef, supportsConnectionDetails } from "../../src/render/functions/patch-and-transform/connection.js";
import { applyCombineFromVariablesPatch, applyFromFieldPathPatch, composedTemplates } from "../../src/render/functions/patch-and-transform/patches.js";
import { isReady } from "../../src/render/functions/patch-and-transform/ready.js";
import {
  getConversionFunc,
  resolveConvert,
  resolveMap,
  resolveMatch,
  resolveMath,
  resolveString,
  resolveTransforms,
} from "../../src/render/functions/patch-and-transform/transforms.js";
import * as validate from "../../src/render/functions/patch-and-transform/validate.js";
import { HAS_SHARED, SHARED, describeShared } from "../helpers.js";

/** Cases that cannot apply to this implementation, by name, with the reason. Aim: none. */
const SKIPPED: Record<string, string> = {};

type Case = Record<string, any> & { name: string; function?: string };

const DIR = path.join(SHARED, "conformance/patch-and-transform");

function load(file: string): Case[] {
  return HAS_SHARED ? (JSON.parse(fs.readFileSync(path.join(DIR, file), "utf8")) as Case[]) : [];
}

function typed(value: unknown, type: string | undefined): unknown {
  if (type === "int") return goNumber("int", value as number);
  if (type === "float64") return float64(value as number);
  if (type && type.startsWith("[]")) return new GoOpaque(type, value);
  return value;
}

/** Runs `fn` and checks it against the case's want / wantError. */
function expectOutcome(c: Case, fn: () => unknown, check?: (result: unknown) => void): void {
  let result: unknown;
  let error: Error | undefined;
  try {
    result = fn();
  } catch (err) {
    error = err as Error;
  }
  if (c.wantError !== undefined) {
    expect(error, `expected error ${c.wantError}`).toBeDefined();
    if (c.wantErrorMatch !== "any") expect(error!.message).toBe(c.wantError);
    return;
  }
  if (error) throw error;
  if (check) check(result);
  else expect(toPlainJson(result)).toEqual(c.want);
  if (c.wantType) expect(numberType(result)).toBe(c.wantType);
}

const TRANSFORMS: Record<string, (c: Case) => unknown> = {
  ResolveMap: (c) => resolveMap(c.transform.map, typed(c.input, c.inputType)),
  ResolveMatch: (c) => resolveMatch(c.transform.match, typed(c.input, c.inputType)),
  ResolveMath: (c) => resolveMath(c.transform.math, typed(c.input, c.inputType)),
  ResolveString: (c) => resolveString(c.transform.string, typed(c.input, c.inputType)),
  ResolveConvert: (c) => resolveConvert(c.transform.convert, typed(c.input, c.inputType)),
  GetConversionFunc: (c) => (getConversionFunc(c.transform.convert, c.inputType), true),
  ResolveTransforms: (c) => resolveTransforms(c.transforms, typed(c.input, c.inputType)),
};

const VALIDATORS: Record<string, (input: any) => validate.FieldError | undefined> = {
  ValidateReadinessCheck: validate.validateReadinessCheck,
  ValidateConnectionDetail: validate.validateConnectionDetail,
  ValidatePatch: validate.validatePatch,
  ValidateCombine: validate.validateCombine,
  ValidateTransform: validate.validateTransform,
};

function run(c: Case, body: () => void) {
  const skip = SKIPPED[c.name];
  if (skip) it.skip(`${c.name} (skipped: ${skip})`, () => {});
  else it(c.name, body);
}

describeShared("patch-and-transform conformance (../shared/conformance)", () => {
  describe("transforms.json", () => {
    for (const c of load("transforms.json")) {
      run(c, () => {
        const fn = TRANSFORMS[c.function!];
        expect(fn, `unknown function ${c.function}`).toBeDefined();
        if (c.wantFieldError) {
          let err: unknown;
          try {
            fn!(c);
          } catch (e) {
            err = e;
          }
          expect(err).toBeInstanceOf(validate.FieldError);
          expect((err as validate.FieldError).field).toBe(c.wantFieldError.field);
          expect((err as validate.FieldError).type).toBe(c.wantFieldError.type);
        }
        expectOutcome(c, () => fn!(c));
      });
    }
  });

  describe("patches.json", () => {
    for (const c of load("patches.json")) {
      run(c, () => {
        if (c.function === "ComposedTemplates") {
          expectOutcome(c, () => ({ resources: composedTemplates(c.patchSets, c.resources) }));
          return;
        }
        const to = structuredClone(c.to ?? {});
        const apply = c.function === "ApplyCombineFromVariablesPatch" ? applyCombineFromVariablesPatch : applyFromFieldPathPatch;
        expectOutcome(c, () => (apply(c.patch, c.from, to), { to }));
        if (c.wantWithError) expect(to).toEqual(c.wantWithError.to);
      });
    }
  });

  describe("ready.json", () => {
    for (const c of load("ready.json")) {
      run(c, () => expectOutcome(c, () => isReady(c.observed, c.readinessChecks)));
    }
  });

  describe("connection.json", () => {
    for (const c of load("connection.json")) {
      run(c, () => {
        if (c.function === "ExtractConnectionDetails") {
          const secret = Object.fromEntries(Object.entries((c.observedConnectionDetails ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v)]));
          expectOutcome(
            c,
            () => extractConnectionDetails(c.observed ?? {}, secret, c.connectionDetails),
            (result) => {
              const asStrings = Object.fromEntries(Object.entries(result as Record<string, Buffer>).map(([k, v]) => [k, v.toString("utf8")]));
              expect(asStrings).toEqual(c.want);
            },
          );
        } else if (c.function === "getConnectionSecretRef") {
          expectOutcome(c, () => getConnectionSecretRef(c.observedComposite, c.writeConnectionSecretToRef));
        } else {
          expectOutcome(c, () => supportsConnectionDetails(c.observedComposite));
        }
      });
    }
  });

  describe("validate.json", () => {
    for (const c of load("validate.json")) {
      run(c, () => {
        const err = VALIDATORS[c.function!]!(c.input);
        if (c.wantValid) {
          expect(err?.message).toBeUndefined();
          return;
        }
        const want = c.wantErrors[0];
        expect(err?.field).toBe(want.field);
        expect(err?.type).toBe(want.type);
        expect(err?.message).toBe(want.error);
      });
    }
  });
});
