/**
 * Documents that mean to be Kubernetes objects but would be read as nothing: one with
 * `apiVersion` or `kind` but not the other (and `metadata`, which no other YAML file has beside
 * them), and an object whose API group is a misspelling of one Kubernetes or Crossplane serves
 * (`apiextension.crossplane.io`). A file that is no Kubernetes object at all (no apiVersion and no
 * kind: values.yaml, a workflow; or a Helm Chart.yaml, which has an apiVersion and no metadata)
 * is nobody's concern and says nothing.
 */

export interface ShapeProblem {
  rule: string;
  /** JSON pointer in the document: "" for the document itself, `/apiVersion`. */
  pointer: string;
  message: string;
}

/** `v1`, `apps/v1`, `example.org/v1beta2`: what a Kubernetes apiVersion looks like. */
const API_VERSION = /^([a-z0-9]([a-z0-9.-]*[a-z0-9])?\/)?v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;

/** kustomize reads these with or without an apiVersion. */
const KUSTOMIZE_KINDS = new Set(["Kustomization", "Component"]);

/** A document with one of apiVersion and kind and metadata, but not the other. */
export function incompleteObject(doc: unknown): ShapeProblem | undefined {
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) return undefined;
  const o = doc as Record<string, unknown>;
  const has = (key: string) => typeof o[key] === "string" && o[key] !== "";
  const meta = o.metadata;
  if (!meta || typeof meta !== "object" || Array.isArray(meta)) return undefined;
  // Both keys present (one of the wrong type is said by the loader), or neither: not this problem.
  if ("apiVersion" in o === "kind" in o) return undefined;
  if (has("kind") && !("apiVersion" in o)) {
    // A Kubernetes kind is a CamelCase name; UI5's `kind: extension` with metadata is not one.
    if (KUSTOMIZE_KINDS.has(o.kind as string) || !/^[A-Z][A-Za-z0-9]*$/.test(o.kind as string)) return undefined;
    return {
      rule: "schema/required",
      pointer: "",
      message: `\`apiVersion\` is missing: a ${o.kind} with metadata is a Kubernetes object, and the API server refuses one without its API version; nothing else in it is checked`,
    };
  }
  if (has("apiVersion") && !("kind" in o) && API_VERSION.test(o.apiVersion as string)) {
    return {
      rule: "schema/required",
      pointer: "",
      message: `\`kind\` is missing: an object with \`apiVersion: ${o.apiVersion}\` and metadata is a Kubernetes object, and the API server refuses one without its kind; nothing else in it is checked`,
    };
  }
  return undefined;
}

/** API groups Kubernetes and Crossplane serve, and those of the tools this repository's files are for. */
const KNOWN_GROUPS = [
  "apps",
  "batch",
  "autoscaling",
  "policy",
  "networking.k8s.io",
  "rbac.authorization.k8s.io",
  "apiextensions.k8s.io",
  "admissionregistration.k8s.io",
  "apiregistration.k8s.io",
  "authentication.k8s.io",
  "authorization.k8s.io",
  "certificates.k8s.io",
  "coordination.k8s.io",
  "discovery.k8s.io",
  "events.k8s.io",
  "flowcontrol.apiserver.k8s.io",
  "internal.apiserver.k8s.io",
  "node.k8s.io",
  "resource.k8s.io",
  "scheduling.k8s.io",
  "storage.k8s.io",
  "storagemigration.k8s.io",
  "gateway.networking.k8s.io",
  "snapshot.storage.k8s.io",
  "metrics.k8s.io",
  "custom.metrics.k8s.io",
  "external.metrics.k8s.io",
  "kustomize.config.k8s.io",
  "config.kubernetes.io",
  "apiextensions.crossplane.io",
  "pkg.crossplane.io",
  "meta.pkg.crossplane.io",
  "ops.crossplane.io",
  "protection.crossplane.io",
  "secrets.crossplane.io",
  "core.oam.dev",
  "standard.oam.dev",
  "kpt.dev",
  "fn.kpt.dev",
];
const KNOWN = new Set(KNOWN_GROUPS);

/**
 * An object whose API group is not one Kubernetes or Crossplane serves but differs from exactly one
 * of them in one of its labels by a letter or two (`apiextension.crossplane.io`,
 * `rbac.authorisation.k8s.io`, `app`): a typo the API server would refuse and that composition-ci
 * would otherwise only report as a kind it has no schema for. A short label (`nop`, `ec2`, `k8s`) is
 * a name, not a word to misspell: `nop.crossplane.io` is provider-nop's own group, not a typo of
 * `ops.crossplane.io`. Cluster API's groups (`*.x-k8s.io`) sit next to Kubernetes' on purpose.
 */
export function apiGroupTypo(apiVersion: string): ShapeProblem | undefined {
  const slash = apiVersion.indexOf("/");
  if (slash <= 0) return undefined; // the core group (`v1`), or no group at all
  const group = apiVersion.slice(0, slash);
  if (KNOWN.has(group) || group.endsWith("x-k8s.io") || group.length > 100) return undefined;
  const near = KNOWN_GROUPS.filter((known) => oneLabelMisspelt(group, known));
  if (near.length !== 1) return undefined;
  const meant = `${near[0]}${apiVersion.slice(slash)}`;
  return {
    rule: "schema/unknown-group",
    pointer: "/apiVersion",
    message: `API group \`${group}\` is not one Kubernetes or Crossplane serves: did you mean \`${meant}\`? The API server refuses the object, and nothing in it is checked against a schema`,
  };
}

/** The groups have the same labels but one, and that one is a word of 4 (a dotless group) or 5 letters or more, a letter or two off. */
function oneLabelMisspelt(group: string, known: string): boolean {
  const a = group.split(".");
  const b = known.split(".");
  if (a.length !== b.length) return false;
  const differing = a.flatMap((label, i) => (label === b[i] ? [] : [i]));
  if (differing.length !== 1) return false;
  const mine = a[differing[0]!]!;
  const theirs = b[differing[0]!]!;
  if (theirs.length < (b.length === 1 ? 4 : 5)) return false;
  return withinDistance(mine, theirs, theirs.length >= 8 ? 2 : 1);
}

/** Whether the optimal-string-alignment distance (edits, adjacent swaps) of a and b is at most `max`. */
export function withinDistance(a: string, b: string, max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false;
  let prevPrev: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prevPrev[j - 2]! + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > max) return false;
    prevPrev = prev;
    prev = row;
  }
  return prev[b.length]! <= max;
}
