import path from "node:path";
import * as core from "@actions/core";
import { CONFIG_FILE, ConfigError, emptyConfig, parseConfig, type Config } from "../config/config.js";
import { git } from "../git/git.js";
import { narrowToBase } from "../trust.js";
import type { Inputs } from "./inputs.js";

/**
 * The config a run may act on. On a pull request (any `pull_request*` event) the head is
 * untrusted in every mode, not only `pr`: the settings that make the run execute or connect
 * (`functions:`, `functions.trusted`, `packages:`, schema locations) are kept only as far as the
 * base commit's config has them. With allow-exec the caller has said the head is trusted.
 */
export async function trustedConfig(inputs: Inputs, head: Config, root: string): Promise<Config> {
  const event = process.env.GITHUB_EVENT_NAME ?? "";
  if (!event.startsWith("pull_request") || inputs.allowExec) return head;
  return narrowToBase(head, await baseConfig(inputs, root));
}

async function baseConfig(inputs: Inputs, root: string): Promise<Config> {
  if (!inputs.baseRef) return emptyConfig();
  const file = inputs.config ?? CONFIG_FILE;
  const top = (await git(["rev-parse", "--show-toplevel"], root).catch(() => root)).trim();
  const inRepo = path.relative(top, path.resolve(root, file)).split(path.sep).join("/");
  let text: string;
  try {
    text = await git(["show", `${inputs.baseRef}:${inRepo}`], root);
  } catch {
    return emptyConfig(); // no config at base: nothing the head may widen
  }
  try {
    return parseConfig(text, `${inRepo} at ${inputs.baseRef.slice(0, 7)}`);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    core.warning(`the base commit's ${inRepo} cannot be read (${err.message}): the head's config may not widen anything`);
    return emptyConfig();
  }
}
