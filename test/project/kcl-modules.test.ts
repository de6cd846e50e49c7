import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as TOML from "smol-toml";
import { describe, expect, it } from "vitest";
import { completedLock, kclDependencies, kpmHashDir, moduleReference } from "../../src/project/kcl-modules.js";

/** kcl.mod's dependencies as kpm v0.12 reads them (issue 36): where each is looked for, which the cache can hold. */

const folder = (files: Record<string, string>) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-kcl-mod-"));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
};

describe("kcl.mod dependencies", () => {
  it("the short form is ghcr.io/kcl-lang/<name>:<version>; oci with a tag is that module; each at <repository's last part>_<tag>", () => {
    const deps = kclDependencies(
      folder({
        "kcl.mod": `[package]
name = "app"

[dependencies]
k8s = "1.31"
models = { oci = "oci://registry.example.org/platform/kcl/models", tag = "0.3.0" }
local = { path = "./local" }
helpers = { git = "https://github.com/acme/helpers", tag = "v1" }
latest = { oci = "oci://registry.example.org/platform/latest" }
`,
      }),
    );
    expect(deps?.modules.map((m) => [m.name, moduleReference(m), m.dir])).toEqual([
      ["k8s", "ghcr.io/kcl-lang/k8s:1.31", "k8s_1.31"],
      ["models", "registry.example.org/platform/kcl/models:0.3.0", "models_0.3.0"],
    ]);
    expect(deps?.fetchedByFunction).toEqual(["helpers (https://github.com/acme/helpers)", "latest (oci://registry.example.org/platform/latest, no tag)"]);
  });

  it("a name, tag or repository that is not one (a path out of the copy, say) is never looked for: each place is one path component", () => {
    const deps = kclDependencies(
      folder({
        "kcl.mod": `[dependencies]
"../evil" = "1.0"
k8s = "../../../../tmp/x"
up = { oci = "oci://registry.example.org/a/..", tag = "1" }
tag = { oci = "oci://registry.example.org/a/b", tag = "1/../../x" }
fine = { oci = "oci://registry.example.org/a/b__c--d", tag = "v1.2_3" }
`,
      }),
    );
    expect(deps?.modules.map((m) => m.dir)).toEqual(["b__c--d_v1.2_3"]);
    expect(deps?.fetchedByFunction).toHaveLength(4);
  });

  it("a path dependency is read from the folder whatever its name: nothing to fetch", () => {
    expect(kclDependencies(folder({ "kcl.mod": '[dependencies]\n"my models" = { path = "./models" }\n' }))).toEqual({ modules: [], fetchedByFunction: [] });
  });

  it("no kcl.mod, or one that is not TOML: nothing is said here (function-kcl says what is wrong)", () => {
    expect(kclDependencies(folder({ "main.k": "a = 1\n" }))).toBeUndefined();
    expect(kclDependencies(folder({ "kcl.mod": "[package\nname = " }))).toBeUndefined();
    expect(kclDependencies(folder({ "kcl.mod": '[package]\nname = "a"\n' }))).toEqual({ modules: [], fetchedByFunction: [] });
  });
});

describe("kcl.mod.lock", () => {
  const k8s = { name: "k8s", registry: "ghcr.io", repository: "kcl-lang/k8s", tag: "1.31", dir: "k8s_1.31" };

  it("an entry with a checksum at the module's version is kept as the repository wrote it: nothing to add", () => {
    const lock = '[dependencies]\n  [dependencies.k8s]\n    name = "k8s"\n    full_name = "k8s_1.31"\n    version = "1.31"\n    sum = "repo-sum="\n';
    expect(completedLock(lock, [{ module: k8s, version: "1.31", sum: "other=" }])).toBeUndefined();
  });

  it("a missing entry, one at another version or one without a checksum is written as kpm writes it; other entries stay", () => {
    const lock =
      '[dependencies]\n  [dependencies.k8s]\n    name = "k8s"\n    version = "1.30"\n    sum = "old="\n  [dependencies.other]\n    name = "other"\n    sum = "x="\n';
    const written = TOML.parse(completedLock(lock, [{ module: k8s, version: "1.31", sum: "new=" }])!) as { dependencies: Record<string, unknown> };
    expect(written.dependencies).toEqual({
      k8s: { name: "k8s", full_name: "k8s_1.31", version: "1.31", sum: "new=", reg: "ghcr.io", repo: "kcl-lang/k8s", oci_tag: "1.31" },
      other: { name: "other", sum: "x=" },
    });
    expect(TOML.parse(completedLock(undefined, [{ module: k8s, version: "1.31", sum: "s=" }])!)).toHaveProperty("dependencies.k8s.sum", "s=");
  });

  it("one entry per name, the first given (the root's own dependency) winning; a lock that is not TOML is left as it is", () => {
    const older = { ...k8s, tag: "1.28", dir: "k8s_1.28" };
    const written = TOML.parse(
      completedLock(undefined, [
        { module: k8s, version: "1.31", sum: "root=" },
        { module: older, version: "1.28", sum: "transitive=" },
      ])!,
    ) as { dependencies: Record<string, { version: string; sum: string }> };
    expect(written.dependencies.k8s).toMatchObject({ version: "1.31", sum: "root=" });
    expect(completedLock("[dependencies\n", [{ module: k8s, version: "1.31", sum: "s=" }])).toBeUndefined();
  });

  it("kpm's directory checksum: file contents in lexical path order, .git and .tar paths left out", () => {
    const dir = folder({ "b.k": "b", "a/z.k": "z", "kcl.mod": "m", ".git/HEAD": "ref", "vendor.tar": "tar" });
    // Walked: a/z.k, b.k, kcl.mod (Go's filepath.Walk is lexical: "a" < "b.k" < "kcl.mod").
    expect(kpmHashDir(dir)).toBe(createHash("sha256").update("zbm").digest("base64"));
  });
});
