import { UsageError } from "../core/usage.js";
import type { Config } from "../config/config.js";
import { releaseFor, VersionError, type CrossplaneRelease } from "../core/crossplane-releases.js";

/** The release a command renders as (--crossplane-version, else the config's); a bad one is a usage error. */
export function renderRelease(flag: string | undefined, config: Pick<Config, "crossplaneVersion" | "crossplaneRelease">): CrossplaneRelease {
  try {
    return releaseFor(flag, config);
  } catch (err) {
    if (err instanceof VersionError) throw new UsageError(`--crossplane-version: ${err.message}`);
    throw err;
  }
}
