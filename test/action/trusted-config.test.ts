import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { trustedConfig } from "../../src/action/trusted-config.js";
import type { Inputs } from "../../src/action/inputs.js";
import { loadConfig } from "../../src/config/config.js";
import { gitRepo } from "../helpers.js";

const saved = process.env.GITHUB_EVENT_NAME;
afterEach(() => {
  process.env.GITHUB_EVENT_NAME = saved;
});

describe("on a pull request, every mode acts on the head's config only as far as the base's allows", () => {
  it("mode validate and test: functions.trusted, packages and functions: added by the head are dropped; a push trusts the head", async () => {
    const { dir, git } = gitRepo({ ".composition-ci.yaml": "functions:\n  trusted: [ghcr.io/acme/*]\n" });
    const base = git("rev-parse", "HEAD").trim();
    fs.writeFileSync(path.join(dir, ".composition-ci.yaml"), "functions:\n  trusted: [ghcr.io/acme/*, ghcr.io/attacker/*]\n  mine: {command: [./run.sh]}\npackages: [ghcr.io/attacker/provider:v1.0.0]\n");
    const head = loadConfig(dir);
    const inputs = { baseRef: base, allowExec: false } as Inputs;
    process.env.GITHUB_EVENT_NAME = "pull_request";
    const narrowed = await trustedConfig(inputs, head, dir);
    expect(narrowed.trustedFunctions).toEqual(["ghcr.io/acme/*"]);
    expect(narrowed.packages).toEqual([]);
    expect(narrowed.functions).toEqual({});
    process.env.GITHUB_EVENT_NAME = "pull_request_target";
    expect((await trustedConfig(inputs, head, dir)).trustedFunctions).toEqual(["ghcr.io/acme/*"]);
    process.env.GITHUB_EVENT_NAME = "push";
    expect((await trustedConfig(inputs, head, dir)).trustedFunctions).toEqual(["ghcr.io/acme/*", "ghcr.io/attacker/*"]);
    process.env.GITHUB_EVENT_NAME = "pull_request";
    expect((await trustedConfig({ ...inputs, allowExec: true }, head, dir)).packages).toEqual(["ghcr.io/attacker/provider:v1.0.0"]);
  });
});
