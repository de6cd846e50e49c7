import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { emptyConfig, parseConfig } from "../../src/config/config.js";
import { validateRepo } from "../../src/run/validate.js";
import { REPO } from "../helpers.js";

/** Every rule fixture directory (see test/fixtures/rules/_shared/README.md) as [rule id, dir]. */
const FIXTURES = path.join(REPO, "test/fixtures/rules");

function fixtureDirs(dir: string, prefix = ""): [string, string][] {
  const out: [string, string][] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith("_")) continue;
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    const abs = path.join(dir, entry.name);
    if (fs.existsSync(path.join(abs, "fail.yaml"))) out.push([rel, abs]);
    out.push(...fixtureDirs(abs, rel));
  }
  return out.sort();
}

/** Validates one fixture file with the shared files its `# context:` lines name; the root is FIXTURES. */
async function findingsOf(dir: string, file: string) {
  const configFile = path.join(dir, "config.yaml");
  const config = fs.existsSync(configFile) ? parseConfig(fs.readFileSync(configFile, "utf8"), "config.yaml") : emptyConfig();
  const text = fs.readFileSync(path.join(dir, file), "utf8");
  const context = [...text.matchAll(/^# context: (\S+)$/gm)].map((m) => m[1]!);
  const rel = path.relative(FIXTURES, path.join(dir, file)).split(path.sep).join("/");
  const result = await validateRepo({ root: FIXTURES, paths: [rel, ...context], config, cacheDir: null });
  return { findings: result.findings, rel };
}

function expectations(text: string): { line: number; message: string }[] {
  return [...text.matchAll(/^# expect: (\d+) (.+)$/gm)].map((m) => ({ line: Number(m[1]), message: m[2]!.trim() }));
}

describe("rule fixtures", () => {
  const dirs = fixtureDirs(FIXTURES);
  it("cover the rules", () => expect(dirs.length).toBeGreaterThan(30));

  for (const [rule, dir] of dirs) {
    it(`${rule}: fail.yaml is caught`, async () => {
      const { findings: all, rel } = await findingsOf(dir, "fail.yaml");
      const findings = all.filter((f) => f.rule === rule && f.file === rel);
      expect(findings.length, `no ${rule} finding`).toBeGreaterThan(0);
      for (const f of findings) expect(f.line, `${rule} finding without a line: ${f.message}`).toBeGreaterThan(0);
      const wanted = expectations(fs.readFileSync(path.join(dir, "fail.yaml"), "utf8"));
      expect(wanted.length, "fail.yaml names no expected finding").toBeGreaterThan(0);
      for (const w of wanted) {
        const hit = findings.find((f) => f.line === w.line && f.message.includes(w.message));
        const got = findings.map((f) => `${f.line}: ${f.message}`).join("\n");
        expect(hit, `expected ${rule} at line ${w.line}: ${w.message}\ngot:\n${got}`).toBeDefined();
      }
    });

    it(`${rule}: pass.yaml is clean`, async () => {
      const { findings } = await findingsOf(dir, "pass.yaml");
      const bad = findings.filter((f) => !f.suppressed && (f.rule === rule || f.severity === "error"));
      expect(bad.map((f) => `${f.line}: ${f.rule} ${f.message}`)).toEqual([]);
    });
  }
});
