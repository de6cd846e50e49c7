import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as YAML from "yaml";
import { describe, expect, it } from "vitest";
import { REPO, runCli } from "../helpers.js";
import { mutations, type Json } from "./mutations.js";

/**
 * Every built-in kind with each field (down to three levels) deleted, nulled and given the wrong
 * type: `check` (validation and rendering) must report findings, never crash, and never fail
 * internally.
 */
const FIXTURE = path.join(REPO, "test/fixtures/fuzz");
const DEPTH = 8;
/**
 * `npm test` checks a fixed slice of the mutations (every SAMPLE-th, shifted per document so the
 * slices of neighbouring kinds differ); `npm run test:fuzz` (nightly) checks them all.
 */
const SAMPLE = process.env.COMPOSITION_CI_FUZZ === "full" ? 1 : 8;

interface Doc {
  file: string;
  index: number;
  object: Json;
}

function fixtureDocs(): Doc[] {
  return fs
    .readdirSync(FIXTURE)
    .flatMap((file) =>
      YAML.parseAllDocuments(fs.readFileSync(path.join(FIXTURE, file), "utf8")).map((d, index) => ({ file, index, object: d.toJS() as Json })),
    );
}

function writeRepo(dir: string, docs: Doc[], replace?: { doc: Doc; object: Json }): void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const byFile = new Map<string, Json[]>();
  for (const d of docs) byFile.set(d.file, [...(byFile.get(d.file) ?? []), replace?.doc === d ? replace.object : d.object]);
  for (const [file, objects] of byFile) fs.writeFileSync(path.join(dir, file), objects.map((o) => YAML.stringify(o)).join("---\n"));
}

describe("robustness: partial and wrongly typed objects of every built-in kind", () => {
  const docs = fixtureDocs();
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), "cci-fuzz-cache-"));
  const work = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cci-fuzz-")), "repo");

  it("the fixture itself checks without internal errors", async () => {
    writeRepo(work, docs);
    const { code, stdout, stderr } = await runCli(["check", ".", "--format", "json", "--cache-dir", cache], work);
    expect(stderr).not.toContain("internal error");
    expect(code).toBeLessThan(2);
    expect(JSON.parse(stdout).findings.filter((f: { rule: string; message: string }) => f.rule === "internal/error" || f.message.includes("crashed"))).toEqual(
      [],
    );
  });

  docs.forEach((doc, n) => {
    const kind = (doc.object as { kind?: string }).kind;
    it(`${kind} (${doc.file} #${doc.index}): no mutation crashes or fails internally`, async () => {
      const failures: string[] = [];
      const sample = mutations(doc.object, DEPTH).filter((_, i) => i % SAMPLE === n % SAMPLE);
      expect(sample.length).toBeGreaterThan(0);
      for (const m of sample) {
        writeRepo(work, docs, { doc, object: m.apply(doc.object) });
        const { code, stdout, stderr } = await runCli(["check", ".", "--format", "json", "--cache-dir", cache], work);
        const internal =
          code === 2
            ? [stderr.split("\n").slice(0, 3).join(" ")]
            : JSON.parse(stdout)
                .findings.filter((f: { rule: string; message: string }) => f.rule === "internal/error" || f.message.includes("crashed"))
                .map((f: { message: string }) => f.message);
        if (internal.length) failures.push(`${m.pointer} ${m.how}: ${internal.join("; ")}`);
      }
      expect(failures).toEqual([]);
    }, 120_000);
  });
});
