import type { JsonObject } from "../core/json.js";
import type { Finding, Severity } from "../core/finding.js";
import type { Manifest } from "../manifest/manifest.js";

export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** What the room reads of a manifest: a `Manifest` fits, and so does an object made in memory. */
export type PolicyManifest = Pick<Manifest, "object" | "file" | "locate">;

export interface Location {
  file: string;
  line: number;
  column: number;
}

export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  /** RBAC roles (`namespace:name`) and cluster roles bound to the user, for Kyverno's `roles`/`clusterRoles` match. */
  roles?: string[];
  clusterRoles?: string[];
}

/** One object to admit, as an admission request would carry it. */
export interface PolicyTarget {
  object: JsonObject;
  /** The object before the change: makes the request an UPDATE unless `operation` says otherwise. */
  oldObject?: JsonObject;
  /** CREATE, or UPDATE when `oldObject` is given. */
  operation?: Operation;
  /** Where a field of the object is written (JSON pointer inside the object), for findings. */
  locate?: (pointer: string) => Location | undefined;
  /** What produced the object, named in findings ("rendered from XR default/my-db"). */
  source?: string;
  userInfo?: UserInfo;
  /** The object's Namespace when the caller has it; else looked up among the policies' input. */
  namespaceObject?: JsonObject;
  subResource?: string;
  /** Kyverno CLI values: variables by name (`request.operation`, a context entry's name) set for this object. */
  values?: Record<string, unknown>;
}

/** A kind's REST resource, as discovery would tell it. */
export interface ResourceInfo {
  /** The plural resource name: `deployments`. */
  resource: string;
  namespaced: boolean;
}

export type ResourceFor = (apiVersion: string, kind: string) => ResourceInfo | undefined;

export interface EvaluateOptions {
  /**
   * The resource (plural) and scope of a kind: from CRDs, XRDs and package CRDs. Kinds it does not
   * answer for fall back to the built-in Kubernetes table, then to Kubernetes' plural guess
   * (namespaced when the object has a namespace).
   */
  resourceFor?: ResourceFor;
  /** The clock CEL's `time.now()`-like functions and Kyverno's `time_now`/`time_since` read. */
  now?: () => Date;
  /** Keep every verdict as a `PolicyResult` (tests and tables); without it only findings and counts are made. */
  results?: boolean;
}

/** What a policy (one validation or rule of it) said of one target. */
export type Outcome = "pass" | "fail" | "skip" | "error" | "not-evaluated";

export interface PolicyResult {
  policy: string;
  /** `ValidatingAdmissionPolicy`, `ValidatingPolicy`, `ClusterPolicy`, ... */
  policyKind: string;
  /** The binding (VAP), or the rule name (Kyverno ClusterPolicy), when there is one. */
  binding?: string;
  rule?: string;
  /** Index of the target in the `targets` given. */
  target: number;
  outcome: Outcome;
  message?: string;
  /** A VAP validation's `reason` (Invalid, Forbidden, ...) when it gives one. */
  reason?: string;
  severity?: Severity;
  /** JSON pointer inside the target object the result is about. */
  pointer?: string;
}

export interface PolicyExplain {
  policy: string;
  policyKind: string;
  file?: string;
  line?: number;
  /** Targets the policy's match selected. */
  matched: number;
  passed: number;
  failed: number;
  /** Matched, then left out by matchConditions, preconditions or a missing param (Allow). */
  skipped: number;
  notEvaluated: number;
  errors: number;
  /** How the policy was read where that is not obvious (a VAP without a binding). */
  note?: string;
}

export interface PolicyEvaluation {
  findings: Finding[];
  explain: PolicyExplain[];
  results: PolicyResult[];
}

export type { Finding, Severity };
