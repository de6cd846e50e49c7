import { ConfigError, loadConfig, type Config } from "../config/config.js";
import { UsageError } from "../core/usage.js";

/** The repository's config (the given file, else .composition-ci.yaml at the root); a bad one is a usage error. */
export function configOrUsage(root: string, file?: string): Config {
  try {
    return loadConfig(root, file);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
}
