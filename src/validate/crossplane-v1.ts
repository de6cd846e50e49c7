import type { Finding } from "../core/finding.js";
import type { Manifest } from "../manifest/manifest.js";

/**
 * What Crossplane v2 removed, said as such: a v1 repository checked against the v2 schemas gets
 * findings that name the removal and the replacement, and `crossplaneVersion: 1` in the config
 * accepts the v1 forms (the upgrade guide: docs.crossplane.io, "Upgrade to Crossplane v2").
 */

interface Removal {
  matches: (f: Finding) => boolean;
  hint: string;
  /** The hint says everything: it replaces the message instead of following it. */
  replaces?: boolean;
}

const PACKAGE_KINDS = new Set(["Provider", "Function", "Configuration"]);
const isPackage = (f: Finding) => f.apiVersion?.startsWith("pkg.crossplane.io/") === true && PACKAGE_KINDS.has(f.kind ?? "");

const V1_REMOVALS: Removal[] = [
  {
    matches: (f) => f.rule === "schema/unknown-field" && isPackage(f) && f.path === "spec.controllerConfigRef",
    hint: "removed in Crossplane v2 with ControllerConfig: use a DeploymentRuntimeConfig through spec.runtimeConfigRef (`crossplane beta convert deployment-runtime` converts a ControllerConfig)",
  },
  {
    matches: (f) => f.rule === "schema/missing" && f.apiVersion === "pkg.crossplane.io/v1alpha1" && f.kind === "ControllerConfig",
    hint: "ControllerConfig was removed in Crossplane v2: use a DeploymentRuntimeConfig (pkg.crossplane.io/v1beta1; `crossplane beta convert deployment-runtime` converts it)",
    replaces: true,
  },
  {
    matches: (f) => f.rule === "schema/cel" && isPackage(f) && f.path === "spec.package",
    hint: "Crossplane v2 has no default registry: name it in the package (xpkg.crossplane.io/crossplane-contrib/…)",
  },
  {
    matches: (f) => f.rule === "schema/unknown-field" && /(^|\.)publishConnectionDetails(To|WithStoreConfigRef)$/.test(f.path ?? ""),
    hint: "external secret stores were removed in Crossplane v2: write connection details to a Secret (writeConnectionSecretToRef) or use External Secrets Operator",
  },
];

const V1_NOTE = "; set crossplaneVersion: 1 in .composition-ci.yaml to validate for Crossplane v1";

/** Each finding about a v1-only form, explained (v2) or dropped (crossplaneVersion: 1). */
export function explainV1Forms(findings: Finding[], crossplaneVersion: 1 | 2 | undefined): Finding[] {
  const out: Finding[] = [];
  for (const f of findings) {
    const removal = V1_REMOVALS.find((r) => r.matches(f));
    if (!removal) out.push(f);
    else if (crossplaneVersion !== 1) out.push({ ...f, message: `${removal.replaces ? "" : `${f.message.replace(/\.$/, "")}. `}${removal.hint}${V1_NOTE}` });
  }
  return out;
}

/** Rules that say a v1-only form is not valid in Crossplane v2. */
const V1_FORM_RULES = new Set(["composition/mode-resources"]);

/** What a repository shows of the Crossplane it is written for. */
export interface VersionEvidence {
  /** v1-only forms: legacy Compositions, ControllerConfigs, packages without a registry, ... */
  v1: number;
  /** v2-only forms: v2 XRDs, namespaced managed resources, Operations, MRDs/MRAPs. */
  v2: number;
}

export function versionEvidence(manifests: Manifest[], findings: Finding[]): VersionEvidence {
  let v1 = findings.filter((f) => isV1Form(f)).length;
  let v2 = 0;
  for (const m of manifests) {
    if (m.kind === "ControllerConfig" && m.apiVersion.startsWith("pkg.crossplane.io/")) v1++;
    if (m.kind === "CompositeResourceDefinition" && m.apiVersion === "apiextensions.crossplane.io/v2") v2++;
    else if (m.apiVersion.startsWith("ops.crossplane.io/")) v2++;
    else if (m.kind === "ManagedResourceActivationPolicy" || m.kind === "ManagedResourceDefinition") v2++;
    else if (/\.m\.(upbound\.io|crossplane\.io)\//.test(m.apiVersion)) v2++;
  }
  return { v1, v2 };
}

const isV1Form = (f: Finding) => V1_FORM_RULES.has(f.rule) || V1_REMOVALS.some((r) => r.matches(f));

/**
 * A repository that is evidently written for Crossplane v1 (v1-only forms and no v2-only one)
 * while the config names no version: composition-ci validates for v2, but whether the cluster
 * runs v1 or v2 is a guess, so each v1-only form is a warning, not an error, and the repository
 * gets one finding that counts them and names the two fixes.
 */
export function v1Repository(findings: Finding[], manifests: Manifest[], crossplaneVersion: 1 | 2 | undefined): Finding[] {
  if (crossplaneVersion !== undefined) return findings;
  const evidence = versionEvidence(manifests, findings);
  if (evidence.v1 === 0 || evidence.v2 > 0) return findings;
  const forms = findings.filter(isV1Form);
  const legacy = forms.filter((f) => f.rule === "composition/mode-resources").length;
  const others = forms.length - legacy;
  const counted = [
    legacy ? `${legacy} mode: Resources Composition${legacy === 1 ? "" : "s"}` : "",
    others ? `${others} other form${others === 1 ? "" : "s"} Crossplane v2 removed` : "",
  ]
    .filter(Boolean)
    .join(" and ");
  const summary: Finding = {
    rule: "crossplane/v1-repository",
    severity: "warning",
    message:
      `this repository is written for Crossplane v1 (${counted}, and nothing only v2 has); composition-ci validates for Crossplane v2 by default, ` +
      `so those are warnings here: ${legacy ? "convert the Compositions to function pipelines (`crossplane beta convert pipeline-composition`)" : "move to the v2 forms each finding names"}, or set crossplaneVersion: 1 in .composition-ci.yaml while you run Crossplane v1`,
  };
  return [summary, ...findings.map((f) => (isV1Form(f) && f.severity === "error" ? { ...f, severity: "warning" as const } : f))];
}
