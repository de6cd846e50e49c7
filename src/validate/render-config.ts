import type { Finding } from "../core/finding.js";
import type { Manifest } from "../manifest/manifest.js";

/** How a `crossplane render` configuration says how a function runs (Development, Docker). */
export const RUNTIME_ANNOTATION = "render.crossplane.io/runtime";

/**
 * A package object annotated `render.crossplane.io/runtime: Development` configures
 * `crossplane render`, which connects to a locally served function and ignores the package: its
 * `spec.package` is a placeholder (`package: function-kro`), so findings about it are dropped.
 */
export function withoutPlaceholderPackage(m: Manifest, findings: Finding[]): Finding[] {
  return hasPlaceholderPackage(m) ? findings.filter((f) => f.path !== "spec.package") : findings;
}

export function hasPlaceholderPackage(m: Manifest): boolean {
  if (!m.apiVersion.startsWith("pkg.crossplane.io/")) return false;
  const annotations = (m.object as { metadata?: { annotations?: Record<string, unknown> } }).metadata?.annotations;
  return annotations?.[RUNTIME_ANNOTATION] === "Development";
}
