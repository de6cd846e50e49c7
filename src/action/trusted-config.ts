import path from "node:path";
import * as core from "@actions/core";
import { CONFIG_FILE, ConfigError, emptyConfig, parseConfig, type Config } from "../config/config.js";
import { git } from "../git/git.js";
import { headConfigChange, narrowToBase } from "../trust.js";
import type { Finding } from "../core/finding.js";
import type { Inputs } from "./inputs.js";

/**
 * The config a run may act on, and what the head's config would change that is not applied. On
 * every event that checks out code the base branch did not approve (`untrustedEvent`), in every
 * mode, the base commit's config decides the gate and what may run or connect (`narrowToBase`);
 * with allow-exec the caller has said the head is trusted.
 */
export async function trustedConfig(inputs: Inputs, head: Config, root: string): Promise<{ config: Config; notes: Finding[] }> {
  if (!untrustedEvent(process.env) || inputs.allowExec) return { config: head, notes: [] };
  const base = await baseConfig(inputs, root);
  const change = headConfigChange(head, base);
  return { config: narrowToBase(head, base), notes: change ? [change] : [] };
}

/**
 * Whether the run checks code the base branch did not approve. Only a push to a protected branch
 * (GITHUB_REF_PROTECTED) and a schedule (which runs on the default branch) check approved code and
 * read their own config; pull_request, pull_request_target, merge_group, issue_comment,
 * workflow_run, workflow_dispatch and any other event take the untrusted path (SECURITY.md).
 */
export function untrustedEvent(env: NodeJS.ProcessEnv): boolean {
  const event = env.GITHUB_EVENT_NAME ?? "";
  if (event === "") return false; // not in GitHub Actions: the CLI's caller decides
  if (event === "schedule") return false;
  if (event === "push") return env.GITHUB_REF_PROTECTED !== "true";
  return true;
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
