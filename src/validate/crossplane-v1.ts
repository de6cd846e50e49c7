import type { Finding } from "../report/finding.js";

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
