// core/: what every room shares and imports nothing of the project: Finding, the JSON helpers, UsageError, markdown escaping, the Crossplane release table.
/**
 * Which Crossplane release's `crossplane render` the output imitates. Up to v2.2 the CLI rendered
 * in-process (output.ts); since v2.3 it runs the real XR reconciler once in the Crossplane engine
 * (`crossplane internal render`), whose output engine.ts reproduces. Releases differ in details the
 * reconciler's source shows (crossplane/crossplane internal/render and the composite controller,
 * crossplane/cli cmd/crossplane/render; docs/render.md lists them).
 */

export interface CrossplaneRelease {
  major: number;
  minor: number;
  patch: number;
  /** As the user wrote it, normalised: `v2.3.4`. */
  text: string;
}

/** The newest release whose render composition-ci models: a release newer than it renders as it. */
export const NEWEST_MODELLED: CrossplaneRelease = { major: 2, minor: 5, patch: 0, text: "v2.5.0" };

/** What a release's render does, as switches the output code reads. */
export interface RenderBehaviour {
  release: CrossplaneRelease;
  /** v2.3 and later: the reconciler's output (names, UIDs, resourceRefs, Responsive and Synced, events). */
  engine: boolean;
  /** Engine v2.3.4 and later keep a uid the input XR has; earlier engines always derive one. */
  keepInputUid: boolean;
  /** Engine v2.3.2 and later sort resourceRefs by apiVersion, kind, name and namespace (before: without the namespace). */
  refsByNamespace: boolean;
  /** CLI v2.3.4 and later pass the XRD to the engine, which then writes a legacy XR's refs at spec.resourceRefs. */
  legacySchemaFromXrd: boolean;
  /** Engine v2.3.4 and later refuse observed resources another controller owns or in another namespace. */
  validatesObserved: boolean;
}

export class VersionError extends Error {}

const VERSION = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/;

/** `2`, `v2.3`, `2.3.4` (a major alone means its newest modelled release); `1` is Crossplane v1. */
export function parseCrossplaneVersion(value: string | number): CrossplaneRelease {
  const text = String(value).trim();
  const m = VERSION.exec(text);
  if (!m) throw new VersionError(`"${text}" is not a Crossplane version (v2.5, v2.3.4, 2 or 1)`);
  const major = Number(m[1]);
  if (major !== 1 && major !== 2)
    throw new VersionError(`Crossplane ${text}: composition-ci renders as Crossplane v1 and v2 releases (up to ${NEWEST_MODELLED.text})`);
  if (m[2] === undefined) return major === 2 ? NEWEST_MODELLED : { major: 1, minor: 20, patch: 0, text: "v1" };
  const minor = Number(m[2]);
  const patch = m[3] === undefined ? (major === 2 && minor === 3 ? 4 : 0) : Number(m[3]);
  return { major, minor, patch, text: `v${major}.${minor}.${patch}` };
}

function atLeast(r: CrossplaneRelease, major: number, minor: number, patch: number): boolean {
  if (r.major !== major) return r.major > major;
  if (r.minor !== minor) return r.minor > minor;
  return r.patch >= patch;
}

export function behaviourOf(release: CrossplaneRelease = NEWEST_MODELLED): RenderBehaviour {
  return {
    release,
    engine: atLeast(release, 2, 3, 0),
    keepInputUid: atLeast(release, 2, 3, 4),
    refsByNamespace: atLeast(release, 2, 3, 2),
    legacySchemaFromXrd: atLeast(release, 2, 3, 4),
    validatesObserved: atLeast(release, 2, 3, 4),
  };
}

/** Whether a release is newer than the newest modelled one (it renders as that one, and says so). */
export function newerThanModelled(release: CrossplaneRelease): boolean {
  return atLeast(release, NEWEST_MODELLED.major, NEWEST_MODELLED.minor, NEWEST_MODELLED.patch) && release.text !== NEWEST_MODELLED.text;
}

/** The release a run renders as: the flag, else the config's `crossplaneVersion`, else the newest modelled. */
export function releaseFor(flag: string | undefined, config: { crossplaneVersion?: 1 | 2; crossplaneRelease?: string }): CrossplaneRelease {
  if (flag !== undefined) return parseCrossplaneVersion(flag);
  if (config.crossplaneRelease !== undefined) return parseCrossplaneVersion(config.crossplaneRelease);
  return config.crossplaneVersion === 1 ? parseCrossplaneVersion(1) : NEWEST_MODELLED;
}
