/** Crossplane package references: `registry/org/name:tag` or `registry/org/name@sha256:…`. */

/**
 * A package reference without registry, tag or digest:
 * `xpkg.upbound.io/crossplane-contrib/function-patch-and-transform:v0.9.0` →
 * `crossplane-contrib/function-patch-and-transform`.
 */
export function packagePath(pkg: string): string {
  let ref = pkg.trim().split("@")[0]!;
  const lastSlash = ref.lastIndexOf("/");
  const colon = ref.indexOf(":", lastSlash + 1);
  if (colon >= 0) ref = ref.slice(0, colon);
  const parts = ref.split("/");
  if (parts.length > 1 && /[.:]|^localhost$/.test(parts[0]!)) parts.shift();
  return parts.join("/");
}

/** Who publishes builds of the crossplane-contrib functions (Upbound rebuilds them under its organisation). */
const CONTRIB_FUNCTION_PUBLISHERS = ["crossplane-contrib", "upbound"];

/**
 * The function's name (`function-patch-and-transform`) when the package is crossplane-contrib's or
 * Upbound's build of it: one function, whoever built it. A fork published elsewhere is not.
 */
export function contribFunctionName(pkg: string): string | undefined {
  const [org, ...rest] = packagePath(pkg).split("/");
  return rest.length === 1 && CONTRIB_FUNCTION_PUBLISHERS.includes(org!) ? rest[0] : undefined;
}

export interface PackageVersion {
  tag?: string;
  digest?: string;
}

/** The tag and digest of a package reference (either may be absent). */
export function packageVersion(pkg: string): PackageVersion {
  const [ref, digest] = pkg.trim().split("@") as [string, string | undefined];
  const lastSlash = ref.lastIndexOf("/");
  const colon = ref.indexOf(":", lastSlash + 1);
  const out: PackageVersion = {};
  if (colon >= 0) out.tag = ref.slice(colon + 1);
  if (digest) out.digest = digest;
  return out;
}
