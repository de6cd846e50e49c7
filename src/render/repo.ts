import type { Manifest } from "../manifest/manifest.js";
import { findingAt } from "../validate/findings.js";
import { guarded } from "../validate/guard.js";
import type { Finding } from "../report/finding.js";
import { RepoIndex } from "../validate/repo-index.js";
import { renderRepo as renderXrs, type RepoRenderOptions } from "./crossplane/repo.js";
import { renderAppConfig, type OamRenderOptions } from "./oam/appconfig.js";
import { failedInternally, type RenderedSource } from "./source.js";

/**
 * Everything a repository renders: every XR and claim through its Composition, every OAM
 * v1alpha2 ApplicationConfiguration; KubeVela Applications are named as not rendered (their
 * definitions are CUE templates).
 */
export async function renderEverything(manifests: Manifest[] | RepoIndex, options: RepoRenderOptions & OamRenderOptions): Promise<RenderedSource[]> {
  const index = manifests instanceof RepoIndex ? manifests : new RepoIndex(manifests);
  const selected = options.select ?? (() => true);
  const xrs = await renderXrs(index, options);
  const appConfigs = index.appConfigs.filter((ac) => ac.version === "v1alpha2" && selected(ac)).map((ac) => {
    const findings: Finding[] = [];
    return guarded(ac, "rendering", findings, () => renderAppConfig(ac, index, options)) ?? failedInternally(ac, findings);
  });
  return [...xrs, ...appConfigs, ...index.applications.filter(selected).map(notRendered)];
}

export const NOT_RENDERED_VIA = "KubeVela (not rendered)";

function notRendered(app: Manifest): RenderedSource {
  const message = "not rendered (CUE definitions): KubeVela renders Applications from the CUE templates of their definitions, which composition-ci does not evaluate; the Application is validated only";
  return { source: app, via: NOT_RENDERED_VIA, documents: [], objects: [], keys: [], ok: false, findings: [findingAt(app, "", "render/not-rendered", "info", message)] };
}

/** The sources an engine renders (KubeVela Applications are only named). */
export function renderableSources<T extends RenderedSource>(sources: T[]): T[] {
  return sources.filter((s) => s.via !== NOT_RENDERED_VIA);
}

/** `rendered N of M sources (…)`, what render --all and check say at the end. */
export function renderedSummary(sources: RenderedSource[]): string {
  const renderable = renderableSources(sources);
  return `rendered ${renderable.filter((s) => s.ok).length} of ${renderable.length} sources (XRs, claims, ApplicationConfigurations)\n`;
}
