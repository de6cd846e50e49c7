import type { JsonObject } from "../../../core/json.js";
import { getBool, getInteger, getString, getValue, isNotFound } from "../../../manifest/fieldpath.js";
import { wrapError } from "./errors.js";
import type { ReadinessCheck } from "./types.js";
import { validateReadinessCheck } from "./validate.js";

/** The status of condition `type` on an object, `Unknown` when absent. */
export function conditionStatus(o: JsonObject, type: string): string {
  const conditions = (o.status as { conditions?: unknown } | undefined)?.conditions;
  if (!Array.isArray(conditions)) return "Unknown";
  const found = conditions.find((c) => (c as { type?: unknown })?.type === type) as { status?: string } | undefined;
  return found?.status ?? "Unknown";
}

/** Whether an observed composed resource is ready: every check passes, or Ready=True when none. */
export function isReady(observed: JsonObject, checks: ReadinessCheck[] | undefined): boolean {
  if (!checks?.length) return conditionStatus(observed, "Ready") === "True";
  for (const [i, check] of checks.entries()) {
    let ready: boolean;
    try {
      ready = runReadinessCheck(check, observed);
    } catch (err) {
      throw wrapError(err, `cannot run readiness check at index ${i}`);
    }
    if (!ready) return false;
  }
  return true;
}

function ignoreNotFound(fn: () => boolean): boolean {
  try {
    return fn();
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

function runReadinessCheck(c: ReadinessCheck, o: JsonObject): boolean {
  const invalid = validateReadinessCheck(c);
  if (invalid) throw wrapError(invalid, "invalid");
  const path = c.fieldPath ?? "";
  switch (c.type) {
    case "None":
      return true;
    case "NonEmpty":
      return ignoreNotFound(() => (getValue(o, path), true));
    case "MatchString":
      return ignoreNotFound(() => getString(o, path) === c.matchString);
    case "MatchInteger":
      return ignoreNotFound(() => getInteger(o, path) === c.matchInteger);
    case "MatchCondition":
      return conditionStatus(o, c.matchCondition?.type ?? "") === c.matchCondition?.status;
    case "MatchFalse":
      return ignoreNotFound(() => getBool(o, path) === false);
    case "MatchTrue":
      return ignoreNotFound(() => getBool(o, path) === true);
    default:
      return false;
  }
}
