import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { trustedConfig, untrustedEvent } from "../../src/action/trusted-config.js";
import type { Inputs } from "../../src/action/inputs.js";
import { loadConfig } from "../../src/config/config.js";
import { gitRepo } from "../helpers.js";

const saved = { event: process.env.GITHUB_EVENT_NAME, protectedRef: process.env.GITHUB_REF_PROTECTED };
afterEach(() => {
  process.env.GITHUB_EVENT_NAME = saved.event;
  if (saved.protectedRef === undefined) delete process.env.GITHUB_REF_PROTECTED;
  else process.env.GITHUB_REF_PROTECTED = saved.protectedRef;
});

describe("on a pull request, every mode acts on the head's config only as far as the base's allows", () => {
  it("mode validate and test: functions.trusted, packages and functions: added by the head are dropped; a push to a protected branch trusts the head", async () => {
    const { dir, git } = gitRepo({ ".composition-ci.yaml": "functions:\n  trusted: [ghcr.io/acme/*]\n" });
    const base = git("rev-parse", "HEAD").trim();
    fs.writeFileSync(
      path.join(dir, ".composition-ci.yaml"),
      "functions:\n  trusted: [ghcr.io/acme/*, ghcr.io/attacker/*]\n  mine: {command: [./run.sh]}\npackages: [ghcr.io/attacker/provider:v1.0.0]\n",
    );
    const head = loadConfig(dir);
    const inputs = { baseRef: base, allowExec: false } as Inputs;
    process.env.GITHUB_EVENT_NAME = "pull_request";
    const { config: narrowed } = await trustedConfig(inputs, head, dir);
    expect(narrowed.trustedFunctions).toEqual(["ghcr.io/acme/*"]);
    expect(narrowed.packages).toEqual([]);
    expect(narrowed.functions).toEqual({});
    process.env.GITHUB_EVENT_NAME = "pull_request_target";
    expect((await trustedConfig(inputs, head, dir)).config.trustedFunctions).toEqual(["ghcr.io/acme/*"]);
    process.env.GITHUB_EVENT_NAME = "push";
    process.env.GITHUB_REF_PROTECTED = "true";
    expect((await trustedConfig(inputs, head, dir)).config.trustedFunctions).toEqual(["ghcr.io/acme/*", "ghcr.io/attacker/*"]);
    process.env.GITHUB_EVENT_NAME = "pull_request";
    expect((await trustedConfig({ ...inputs, allowExec: true }, head, dir)).config.packages).toEqual(["ghcr.io/attacker/provider:v1.0.0"]);
  });

  it("the base's config decides the gate: rules, ignores and the size limit of the head are not applied to its own check, and are said", async () => {
    const { dir, git } = gitRepo({ ".composition-ci.yaml": "rules:\n  schema/type: warning\nsecretFields: [apiKey]\n" });
    const base = git("rev-parse", "HEAD").trim();
    fs.writeFileSync(
      path.join(dir, ".composition-ci.yaml"),
      'rules:\n  schema/*: off\n  schema/type: warning\nignore: ["**"]\nmaxFileBytes: 1\nsecretFields: [token2]\n',
    );
    const head = loadConfig(dir);
    process.env.GITHUB_EVENT_NAME = "pull_request";
    const { config, notes } = await trustedConfig({ baseRef: base, allowExec: false } as Inputs, head, dir);
    expect(config.rules).toEqual({ "schema/type": "warning" });
    expect(config.ignore).toEqual([]);
    expect(config.maxFileBytes).toBeUndefined();
    // The head may add protection: more secret fields are masked.
    expect(config.secretFields.sort()).toEqual(["apiKey", "token2"]);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ rule: "config/head-not-applied", severity: "warning", file: ".composition-ci.yaml" });
    expect(notes[0]!.message).toBe(
      "this pull request changes ignore, rules, maxFileBytes in .composition-ci.yaml (turns off schema/*; ignores **; lowers maxFileBytes to 1): this check uses the base branch's config; the change takes effect after merge",
    );
  });

  it("which events check code the base branch approved: only a push to a protected branch and a schedule", () => {
    const untrusted = (event: string, protectedRef?: string) =>
      untrustedEvent({ GITHUB_EVENT_NAME: event, ...(protectedRef ? { GITHUB_REF_PROTECTED: protectedRef } : {}) });
    for (const event of ["pull_request", "pull_request_target", "merge_group", "issue_comment", "workflow_run", "workflow_dispatch", "repository_dispatch"])
      expect(untrusted(event), event).toBe(true);
    expect(untrusted("push")).toBe(true);
    expect(untrusted("push", "false")).toBe(true);
    expect(untrusted("push", "true")).toBe(false);
    expect(untrusted("schedule")).toBe(false);
  });
});
