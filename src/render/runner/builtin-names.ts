import { contribFunctionName } from "../../manifest/package-ref.js";

/**
 * The functions composition-ci runs in-process, by package path (builtin.ts holds them): their
 * names alone, for what only needs to know them (the semantic rules), without loading the functions.
 */
export const BUILTIN_PACKAGES = [
  "crossplane-contrib/function-patch-and-transform",
  "crossplane-contrib/function-auto-ready",
  "crossplane-contrib/function-go-templating",
  "crossplane-contrib/function-environment-configs",
  "crossplane-contrib/function-extra-resources",
  "crossplane-contrib/function-cel-filter",
  "crossplane-contrib/function-kro",
] as const;

export type BuiltinPackage = (typeof BUILTIN_PACKAGES)[number];

export function builtinNames(): string[] {
  return BUILTIN_PACKAGES.map((p) => p.split("/").pop()!);
}

/** Whether a Function package (registry and tag ignored) is one of the built-ins. */
export function isBuiltinPackage(pkg: string): boolean {
  const name = contribFunctionName(pkg);
  return name !== undefined && (BUILTIN_PACKAGES as readonly string[]).includes(`crossplane-contrib/${name}`);
}
