import type { Admission } from "./request.js";
import type { Outcome, PolicyManifest, ResourceFor, Severity } from "./types.js";
import type { JsonObject } from "../core/json.js";

/** What every policy format gives the evaluator: a name, where it is written, and its verdicts on one request. */
export interface LoadedPolicy {
  name: string;
  kind: string;
  manifest: PolicyManifest;
  /** The rule ids' suffixes when the policy has several validations or rules; empty when it has one. */
  evaluate(a: Admission, ctx: EvalContext): readonly Verdict[];
  /**
   * False when the policy cannot match any request for this admission's group, version, kind
   * and resource, whatever else the request holds: objects of such kinds are passed over
   * without evaluating each one. Absent: every admission is evaluated.
   */
  mayMatch?(a: Admission): boolean;
  /** Said in the policy's explain entry. */
  note?(): string | undefined;
}

/** One validation's (or rule's) verdict on one request; none at all when the policy does not match it. */
export interface Verdict {
  outcome: Outcome;
  /** The validation index or rule name; undefined for the policy as a whole. */
  part?: string;
  binding?: string;
  message?: string;
  /** The validation's `reason` (VAP): Invalid, Forbidden, ... */
  reason?: string;
  severity: Severity;
  /** JSON pointer inside the target (violations) or, when `atPolicy`, inside the policy. */
  pointer?: string;
  /** Reported at the policy's line (a problem of the policy, or what could not be evaluated), once per policy and message. */
  atPolicy?: boolean;
}

export interface EvalContext {
  resourceFor?: ResourceFor;
  /** Objects of the input by `group/kind`, for params and Kyverno's PolicyExceptions. */
  objectsOfKind(group: string, kind: string): JsonObject[];
}

/** The verdicts of a policy that does not match: shared, never changed (most pairs of policy and object). */
export const NO_VERDICTS: readonly Verdict[] = Object.freeze([]);

export function severityOfActions(actions: unknown): Severity {
  const list = Array.isArray(actions) ? actions.map(String) : [];
  if (list.includes("Deny")) return "error";
  if (list.includes("Warn")) return "warning";
  return "info";
}
