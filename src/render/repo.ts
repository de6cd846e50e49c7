import type { Manifest } from "../manifest/manifest.js";
import { guarded } from "../validate/guard.js";
import type { Finding } from "../core/finding.js";
import { RepoIndex } from "../validate/repo-index.js";
import { renderRepo as renderXrs, type RepoRenderOptions } from "./crossplane/repo.js";
import { renderAppConfig, type OamRenderOptions } from "./oam/appconfig.js";
import { failedInternally, type NotRendered, type RenderedSource } from "../rendered/source.js";
import { renderKptPackages } from "../kpt/index.js";

/**
 * Everything a repository renders: every XR and claim through its Composition, every OAM
 * v1alpha2 ApplicationConfiguration, every top-level kpt package through its Kptfile pipeline
 * (src/kpt); KubeVela Applications are named as not rendered (their definitions are CUE templates).
 */
export async function renderEverything(manifests: Manifest[] | RepoIndex, options: RepoRenderOptions & OamRenderOptions): Promise<RenderedSource[]> {
  const index = manifests instanceof RepoIndex ? manifests : new RepoIndex(manifests);
  const selected = options.select ?? (() => true);
  const xrs = await renderXrs(index, options);
  const appConfigs = index.appConfigs
    .filter((ac) => ac.version === "v1alpha2" && selected(ac))
    .map((ac) => {
      const findings: Finding[] = [];
      return guarded(ac, "rendering", findings, () => renderAppConfig(ac, index, options)) ?? failedInternally(ac, findings);
    });
  const kpt = await renderKptPackages(index, options);
  return [...xrs, ...appConfigs, ...kpt, ...index.applications.filter(selected).map(notRendered)];
}

export const NOT_RENDERED_VIA = "KubeVela (not rendered)";

function notRendered(app: Manifest): RenderedSource {
  const why: NotRendered = {
    what: "KubeVela",
    reason: "renders Applications from the CUE templates of their definitions, which composition-ci does not evaluate",
    fix: "use `vela dry-run` (composition-ci validates them only)",
    severity: "info",
    at: { manifest: app, pointer: "" },
  };
  return { source: app, via: NOT_RENDERED_VIA, documents: [], objects: [], keys: [], ok: false, findings: [], notRendered: [why] };
}

/** The sources an engine renders (KubeVela Applications are only named). */
export function renderableSources<T extends RenderedSource>(sources: T[]): T[] {
  return sources.filter((s) => s.via !== NOT_RENDERED_VIA);
}
