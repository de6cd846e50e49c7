import fs from "node:fs";
import path from "node:path";
import { RunFunctionRequest, Severity } from "@crossplane-org/function-sdk-typescript";
import { describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { runDiff } from "../../src/run/diff.js";
import { withExecLimits } from "../../src/gotemplate/budget.js";
import { runGoTemplating } from "../../src/render/functions/go-templating/function.js";
import { ptComposition } from "../fixtures/compositions.js";
import { xrd } from "../fixtures/nested-xrs.js";
import { gitRepo, runCli, tempRepo } from "../helpers.js";

/**
 * Issue 39.3: what a pull request's templates and compositions make the run do is bounded. Each
 * case below loops, allocates or nests without end, and must end, within a few seconds, with a
 * finding on its source, while the other sources go on.
 */

const inline = (template: string) =>
  RunFunctionRequest.fromJSON({
    meta: { tag: "t" },
    input: { apiVersion: "gotemplating.fn.crossplane.io/v1beta1", kind: "GoTemplate", source: "Inline", inline: { template } },
    observed: { composite: { resource: { apiVersion: "example.org/v1", kind: "XThing", metadata: { name: "thing" }, spec: {} } } },
  });

/** Runs the template; what the function said, and how long it took. */
function run(template: string): { fatal: string; ms: number } {
  const started = performance.now();
  const rsp = runGoTemplating(inline(template));
  const fatal = (rsp.results ?? [])
    .filter((r) => r.severity === Severity.SEVERITY_FATAL)
    .map((r) => r.message)
    .join("\n");
  return { fatal, ms: performance.now() - started };
}

describe("go-templating: every execution has a budget", () => {
  const hostile: Record<string, string> = {
    "until 100000000 (an out-of-memory abort before)": `{{ range until 100000000 }}x{{ end }}`,
    "range nested over until": `{{ range $i := until 100000 }}{{ range $j := until 100000 }}{{ $j }}{{ end }}{{ end }}`,
    "untilStep and seq": `{{ range untilStep 0 1000000000 1 }}{{ end }}{{ seq 1000000000 }}`,
    "a list doubled forty times": `{{ $l := list 1 2 }}{{ range until 40 }}{{ $l = append $l 1 | concat $l }}{{ end }}{{ len $l }}`,
    "a string doubled forty times": `{{ $s := "ab" }}{{ range until 40 }}{{ $s = print $s $s }}{{ end }}{{ len $s }}`,
    "repeat and random strings": `{{ repeat 1000000000 "x" }}{{ randAlpha 1000000000 }}`,
    "a template that includes itself": `{{ define "a" }}{{ include "a" . }}{{ include "a" . }}{{ end }}{{ include "a" . }}`,
    "output without end": `{{ range until 9000000 }}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{{ end }}`,
  };
  for (const [what, template] of Object.entries(hostile)) {
    it(`${what}: ends with a fatal result, quickly`, () => {
      const { fatal, ms } = run(template);
      expect(fatal).toMatch(/cannot execute template: .*(over the execution budget|nested reference|maximum template depth)/);
      expect(ms).toBeLessThan(8000);
    });
  }

  it("expensive sprig functions count: RSA keys, bcrypt and scrypt are charged before they run", () => {
    withExecLimits({ steps: 1_000_000 }, () => {
      for (const template of [
        `{{ range until 100 }}{{ genPrivateKey "rsa" }}{{ end }}`,
        `{{ range until 1000 }}{{ bcrypt "x" }}{{ end }}`,
        `{{ range until 100 }}{{ htpasswd "u" "p" }}{{ end }}`,
        `{{ range until 100 }}{{ derivePassword 1 "long" "p" "u" "s" }}{{ end }}`,
        `{{ range until 100 }}{{ (genCA "x" 3).Cert }}{{ end }}`,
      ]) {
        const { fatal, ms } = run(template);
        expect(fatal, template).toMatch(/over the execution budget of 1000000 steps/);
        expect(ms, template).toBeLessThan(5000);
      }
    });
  });

  it("a wall-clock limit too, checked as steps are counted", () => {
    withExecLimits({ ms: 100 }, () => {
      const { fatal, ms } = run(`{{ range $i := until 1000000 }}{{ if eq (mod $i 2) 0 }}a{{ end }}{{ end }}`);
      expect(fatal).toMatch(/ran longer than 0.1s; stopped/);
      expect(ms).toBeLessThan(3000);
    });
  });

  it("ordinary templates are far inside it", () => {
    const { fatal } = run(`{{ range $i := until 2000 }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-{{ $i }}
  annotations: {gotemplating.fn.crossplane.io/composition-resource-name: cm-{{ $i }}}
data: {a: {{ $i | toString | sha256sum | quote }}, b: {{ list 1 2 3 | toJson | quote }}}
{{ end }}`);
    expect(fatal).toBe("");
  });

  it("check: a Composition whose template runs `until 100000000` is a finding on its source; the repository's other sources render", async () => {
    const files = {
      "xrd.yaml": xrd("XThing", "xthings"),
      "composition.yaml": `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xthings}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XThing}
  mode: Pipeline
  pipeline:
    - step: loop
      functionRef: {name: function-go-templating}
      input:
        apiVersion: gotemplating.fn.crossplane.io/v1beta1
        kind: GoTemplate
        source: Inline
        inline:
          template: |
            {{ if eq .observed.composite.resource.metadata.name "evil" }}{{ range until 100000000 }}{{ range until 100000000 }}x{{ end }}{{ end }}{{ end }}
            apiVersion: v1
            kind: ConfigMap
            metadata:
              annotations: {gotemplating.fn.crossplane.io/composition-resource-name: cm}
            data: {a: b}
`,
      "evil.yaml": "apiVersion: example.org/v1\nkind: XThing\nmetadata: {name: evil}\nspec: {}\n",
      "good.yaml": "apiVersion: example.org/v1\nkind: XThing\nmetadata: {name: good}\nspec: {}\n",
    };
    const started = performance.now();
    const { stdout } = await runCli(["check", ".", "--format", "json", "--no-cache", "--offline"], tempRepo(files));
    expect(performance.now() - started).toBeLessThan(15_000);
    const report = JSON.parse(stdout) as { findings: { rule: string; message: string }[]; sources: { rendered: number; failed: number } };
    const fatal = report.findings.filter((f) => f.rule === "render/function-fatal");
    expect(fatal).toHaveLength(1);
    expect(fatal[0]!.message).toMatch(/over the execution budget.*rendering XThing evil/s);
    expect(report.sources).toMatchObject({ rendered: 1, failed: 1 });
  }, 30_000);
});

/** XLoop's Composition composes `fanOut` XLoops (and a ConfigMap): an XR of its own type, nested without end. */
function selfNesting(fanOut: number): Record<string, string> {
  const loops = Array.from(
    { length: fanOut },
    (_, i) => `          - name: loop-${i}\n            base: {apiVersion: example.org/v1, kind: XLoop, spec: {}}\n`,
  ).join("");
  return {
    "loop/xrd.yaml": xrd("XLoop", "xloops"),
    "loop/composition.yaml": ptComposition(
      "xloops",
      "XLoop",
      `${loops}          - name: cm\n            base: {apiVersion: v1, kind: ConfigMap, data: {a: b}}\n`,
    ),
    "loop/xr.yaml": "apiVersion: example.org/v1\nkind: XLoop\nmetadata: {name: loop}\nspec: {}\n",
    // Another source, which renders as it always does.
    "plain/xrd.yaml": xrd("XPlain", "xplains"),
    "plain/composition.yaml": ptComposition(
      "xplains",
      "XPlain",
      "          - name: cm\n            base: {apiVersion: v1, kind: ConfigMap, data: {plain: yes}}\n",
    ),
    "plain/xr.yaml": "apiVersion: example.org/v1\nkind: XPlain\nmetadata: {name: plain}\nspec: {}\n",
  };
}

describe("nested XRs: each level walked once, within a budget", () => {
  it("a three-level chain renders its leaf once", async () => {
    const files = {
      "a/xrd.yaml": xrd("XA", "xas"),
      "a/composition.yaml": ptComposition("xas", "XA", "          - name: b\n            base: {apiVersion: example.org/v1, kind: XB, spec: {}}\n"),
      "b/xrd.yaml": xrd("XB", "xbs"),
      "b/composition.yaml": ptComposition("xbs", "XB", "          - name: c\n            base: {apiVersion: example.org/v1, kind: XC, spec: {}}\n"),
      "c/xrd.yaml": xrd("XC", "xcs"),
      "c/composition.yaml": ptComposition("xcs", "XC", "          - name: leaf\n            base: {apiVersion: v1, kind: ConfigMap, data: {leaf: yes}}\n"),
      "xr.yaml": "apiVersion: example.org/v1\nkind: XA\nmetadata: {name: a}\nspec: {}\n",
    };
    const { code, stdout } = await runCli(["render", "--all", "."], tempRepo(files));
    expect(code).toBe(0);
    const docs = YAML.parseAllDocuments(stdout).map((d) => d.toJS() as { kind: string; data?: unknown });
    expect(docs.map((d) => d.kind)).toEqual(["XA", "XB", "XC", "ConfigMap"]);
  });

  it("render --all: an XR that composes 20 XRs of its own type ends within its budget, with render/budget on it; the other source renders", async () => {
    const dir = tempRepo(selfNesting(20));
    const started = performance.now();
    const { stdout, stderr } = await runCli(["check", ".", "--format", "json", "--no-cache", "--offline"], dir);
    expect(performance.now() - started).toBeLessThan(20_000);
    const report = JSON.parse(stdout) as { findings: { rule: string; severity: string; message: string; file?: string }[] };
    const budget = report.findings.filter((f) => f.rule === "render/budget");
    expect(budget, stderr).toHaveLength(1);
    expect(budget[0]).toMatchObject({ severity: "warning", file: "loop/xr.yaml" });
    expect(budget[0]!.message).toMatch(/were not rendered: the source already composes \d+ objects, its budget is 10000/);
    const rendered = await runCli(["render", "--all", "plain"], dir);
    expect(rendered.stdout).toContain('plain: "yes"');
  }, 60_000);

  it("depth one (an XR composing one of its own type) stops at --max-nested-depth, at once", async () => {
    const started = performance.now();
    const { stdout } = await runCli(["check", ".", "--format", "json", "--no-cache", "--offline"], tempRepo(selfNesting(1)));
    expect(performance.now() - started).toBeLessThan(15_000);
    const findings = (JSON.parse(stdout) as { findings: { rule: string }[] }).findings;
    expect(findings.filter((f) => f.rule === "render/nested-depth")).toHaveLength(1);
    expect(findings.filter((f) => f.rule === "render/budget")).toHaveLength(0);
  }, 30_000);

  it("diff: a pull request that makes a Composition compose its own XR type ends within the budget, on both sides", async () => {
    const files = selfNesting(20);
    const plain = files["loop/composition.yaml"]!;
    const repo = gitRepo({
      ...files,
      "loop/composition.yaml": ptComposition("xloops", "XLoop", "          - name: cm\n            base: {apiVersion: v1, kind: ConfigMap, data: {a: b}}\n"),
    });
    fs.writeFileSync(path.join(repo.dir, "loop/composition.yaml"), plain);
    const started = performance.now();
    const { report } = await runDiff({ root: repo.dir, paths: ["."], base: "HEAD" });
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(report.findings.new.filter((f) => f.rule === "render/budget")).toHaveLength(1);
    const loop = report.changes.find((c) => c.kind === "XLoop");
    expect(loop?.status).toBe("failed");
  }, 60_000);
});
