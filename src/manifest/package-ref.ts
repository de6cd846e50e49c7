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
