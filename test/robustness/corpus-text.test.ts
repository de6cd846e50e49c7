import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { HAS_SHARED, SHARED, runCli, describeShared } from "../helpers.js";

/**
 * Text mutations of real files: the YAML of `../shared/corpus` (public repositories and upstream
 * examples) with characters inserted and deleted, lines repeated and re-indented, seeded so a
 * failure replays. `check` (validation, rendering, the report) must answer with findings: never an
 * exception, never an internal error. shapes.test.ts does the same for well-formed objects of the
 * wrong shape.
 */

const ROUNDS = 12;
const FILES_PER_ROUND = 40;
const TOKENS = [
  "{",
  "}",
  "[",
  "]",
  ":",
  "- ",
  "\t",
  "'",
  '"',
  "&a ",
  "*a",
  "<<: ",
  "!!str ",
  "? ",
  "|",
  ">",
  "#",
  "---\n",
  "...\n",
  "~",
  "0x1F",
  "1e400",
  "-.inf",
  "\u0000",
  "\uFEFF",
  "${X}",
  "{{ .x }}",
  "apiVersion: v1\nkind: ConfigMap\n",
  "  ",
  "\n",
];

function corpusFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && /\.ya?ml$/.test(e.name)) out.push(p);
    }
  };
  walk(path.join(SHARED, "corpus"));
  return out.sort();
}

/** A small linear congruential generator: the same seed, the same mutations. */
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
}

function mutate(text: string, rnd: () => number): string {
  let t = text;
  const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)]!;
  for (let n = 1 + Math.floor(rnd() * 4); n > 0; n--) {
    const at = Math.floor(rnd() * (t.length + 1));
    const op = rnd();
    const lines = t.split("\n");
    const line = Math.floor(rnd() * lines.length);
    if (op < 0.35) t = t.slice(0, at) + pick(TOKENS) + t.slice(at);
    else if (op < 0.6) t = t.slice(0, at) + t.slice(at + 1 + Math.floor(rnd() * 20));
    else if (op < 0.8) t = [...lines.slice(0, line), pick(lines), ...lines.slice(line)].join("\n");
    else t = [...lines.slice(0, line), (rnd() < 0.5 ? " " : "") + lines[line]!.replace(/^ /, ""), ...lines.slice(line + 1)].join("\n");
  }
  return t;
}

describeShared("check on mutated text of the corpus's files", () => {
  const files = HAS_SHARED ? corpusFiles() : [];

  for (let seed = 1; seed <= ROUNDS; seed++) {
    it(`seed ${seed}: findings, never a crash or an internal error`, async () => {
      const rnd = random(seed);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cci-corpus-text-${seed}-`));
      for (let i = 0; i < FILES_PER_ROUND; i++) {
        const source = files[Math.floor(rnd() * files.length)]!;
        fs.writeFileSync(path.join(dir, `f${i}.yaml`), mutate(fs.readFileSync(source, "utf8"), rnd));
      }
      const run = await runCli(["check", ".", "--format", "json", "--no-cache", "--offline"], dir);
      expect(run.stderr).not.toMatch(/internal|TypeError|RangeError/i);
      expect(run.code).toBeLessThan(2);
      const findings = (JSON.parse(run.stdout) as { findings: { rule: string; file?: string; message: string }[] }).findings;
      expect(findings.filter((f) => f.rule.startsWith("internal/")).map((f) => `${f.file}: ${f.message}`)).toEqual([]);
      expect(findings.length).toBeGreaterThan(0);
      fs.rmSync(dir, { recursive: true, force: true });
    }, 60_000);
  }
});
