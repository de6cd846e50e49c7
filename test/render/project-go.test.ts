import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { FUNCTION_SCRIPT } from "../oci/function-image.js";
import { XAPP_EXAMPLE, XAPP_XRD, projectComposition } from "../fixtures/project.js";
import { runCli, tempRepo } from "../helpers.js";

/**
 * Issue 36: a project's Go function is compiled with the runner's go and run as a process, only
 * with --allow-exec. The `go` here is a stand-in on PATH written for the test: `go build -o OUT .`
 * records the folder it was given and which of the runner's variables it saw, then writes OUT as
 * a RunFunction server (the package tests' function, a node script).
 */

const FAKE_GO = `#!/bin/sh
[ "$1" = build ] && [ "$2" = -o ] || { echo "unexpected: $*" >&2; exit 2; }
ls > "$(dirname "$3")/built-from.txt"
echo "token=\${GITHUB_TOKEN:-absent} cgo=$CGO_ENABLED" >> "$(dirname "$3")/built-from.txt"
grep -q "package main" main.go || { echo "main.go: expected package main" >&2; exit 1; }
cat > "$3" <<'SCRIPT'
${FUNCTION_SCRIPT}
SCRIPT
chmod +x "$3"
`;

const PROJECT = "apiVersion: meta.dev.upbound.io/v1alpha1\nkind: Project\nmetadata: {name: platform}\nspec:\n  repository: xpkg.upbound.io/acme/platform\n";

describe("a project's Go function", () => {
  const saved = { path: process.env.PATH, token: process.env.GITHUB_TOKEN };
  let bin = "";

  beforeEach(() => {
    bin = fs.mkdtempSync(path.join(os.tmpdir(), "cci-fake-go-"));
    fs.writeFileSync(path.join(bin, "go"), FAKE_GO, { mode: 0o755 });
    process.env.PATH = `${bin}${path.delimiter}${saved.path}`;
    process.env.GITHUB_TOKEN = "ghs_runner-secret";
  });
  afterEach(() => {
    process.env.PATH = saved.path;
    if (saved.token === undefined) delete process.env.GITHUB_TOKEN;
    else process.env.GITHUB_TOKEN = saved.token;
  });

  const repo = (main = "package main\n\nfunc main() {}\n") =>
    tempRepo({
      "upbound.yaml": PROJECT,
      "apis/xrd.yaml": XAPP_XRD,
      "apis/composition.yaml": projectComposition("acme-platformcompose"),
      "functions/compose/go.mod": "module example.org/compose\n",
      "functions/compose/main.go": main,
      "examples/xr.yaml": XAPP_EXAMPLE,
    });

  it("with --allow-exec: built from the folder and run as a process function", async () => {
    const { stdout, stderr, code } = await runCli(["render", "--all", ".", "--allow-exec"], repo());
    expect(stderr).not.toContain("not rendered");
    expect(code).toBe(0);
    const made = YAML.parseAllDocuments(stdout)
      .map((d) => d.toJS())
      .find((d) => d?.kind === "ConfigMap");
    expect(made?.data).toEqual({ greeting: "", home: "private" });
  });

  it("the build sees the folder's files and none of the runner's secrets", async () => {
    const dir = repo();
    const seen = path.join(bin, "seen.txt");
    fs.writeFileSync(
      path.join(bin, "go"),
      FAKE_GO.replace('ls > "$(dirname "$3")/built-from.txt"', `ls > ${seen}`).replace('>> "$(dirname "$3")/built-from.txt"', `>> ${seen}`),
      { mode: 0o755 },
    );
    await runCli(["render", "--all", ".", "--allow-exec"], dir);
    expect(fs.readFileSync(seen, "utf8")).toBe("go.mod\nmain.go\ntoken=absent cgo=0\n");
  });

  it("a failing build is the function's failure, with the compiler's output", async () => {
    const { stdout } = await runCli(["check", ".", "--format", "json", "--allow-exec"], repo("package other\n"));
    const failure = (JSON.parse(stdout) as { findings: { rule: string; message: string; detail?: string }[] }).findings.find(
      (f) => f.rule === "render/function-failed",
    );
    expect(failure?.message).toContain("function acme-platformcompose: go build failed");
  });

  it("without --allow-exec nothing is built, and the warning says how to render it", async () => {
    const { stdout } = await runCli(["check", ".", "--format", "json"], repo());
    const finding = (JSON.parse(stdout) as { findings: { rule: string; message: string }[] }).findings.find((f) => f.rule === "render/not-rendered");
    expect(finding?.message).toContain(
      "is a Go function of the project upbound.yaml, built from functions/compose/: composition-ci compiles it with the runner's go only when it may run repository code",
    );
    expect(finding?.message).toContain("run with --allow-exec (Action input allow-exec: true) if you trust the repository and go is on PATH");
  });
});
