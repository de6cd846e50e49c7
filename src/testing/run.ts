import { releaseFor } from "../core/crossplane-releases.js";
import fs from "node:fs";
import path from "node:path";
import { discover } from "../manifest/discover.js";
import { loadPath } from "../manifest/load.js";
import type { Manifest } from "../manifest/manifest.js";
import { COMPOSITION_RESOURCE_NAME } from "../manifest/roles.js";
import type { ValidatedTree, TestReport, TestResult, UnreadableTest } from "./types.js";
import { isCompositionTest, readCompositionTest, runCompositionTest } from "./composition-test.js";
import { isCrossplaneCompositionTest, readCrossplaneTest, runCrossplaneTest } from "./crossplane-test.js";
import { configuredGoldens, examplesByIdentity, foundGolden, readGolden, runGolden, type GoldenCase } from "./golden.js";
import { TestRenderer, type TestRuntimeOptions } from "./render.js";

export interface RunTestsOptions extends TestRuntimeOptions {
  /**
   * The paths the tree was read from: golden files are found below them. Absent (check), they
   * are found in the directories that hold the tree's manifests, and below them.
   */
  paths?: string[];
  /** Rewrite golden files that differ or are missing, in crossplane render's format. */
  update?: boolean;
}

/** Finds and runs the tests of a validated tree. Never throws for bad input: it is in the report. */
export async function runTests(result: ValidatedTree, root: string, options: RunTestsOptions): Promise<TestReport> {
  const started = performance.now();
  // A release the run is told (--crossplane-version, the config's) is what every golden file is compared as.
  const stated = options.release !== undefined || result.config.crossplaneRelease !== undefined || result.config.crossplaneVersion === 1;
  const release = options.release ?? releaseFor(undefined, result.config);
  const renderer = new TestRenderer(
    { root, index: result.index, registry: result.registry, engine: result.engine, config: result.config },
    { ...options, release, releaseStated: stated },
  );
  const tests: TestResult[] = [];
  const unreadable: UnreadableTest[] = [...unreadableTestFiles(result, root)];
  try {
    for (const m of result.manifests.filter(isCompositionTest)) {
      const read = readCompositionTest(m);
      if ("unreadable" in read) unreadable.push(read.unreadable);
      else tests.push(await runCompositionTest(m, read.spec, renderer));
    }
    for (const m of result.manifests.filter(isCrossplaneCompositionTest)) {
      const read = readCrossplaneTest(m);
      if ("unreadable" in read) unreadable.push(read.unreadable);
      else tests.push(...(await runCrossplaneTest(m, read.cases, renderer)));
    }
    const configured = configuredGoldens(result.config.tests?.golden ?? [], result.manifests, renderer);
    unreadable.push(...configured.problems);
    const cases: GoldenCase[] = [...configured.cases];
    const taken = new Set(cases.map((c) => c.file));
    let examples: Map<string, Manifest[]> | undefined;
    for (const file of renderOutputFiles(result, root, options.paths ?? manifestDirectories(result))) {
      if (taken.has(file)) continue;
      const read = readGolden(path.resolve(root, file), file);
      if ("unreadable" in read) {
        unreadable.push(read.unreadable);
        continue;
      }
      examples ??= examplesByIdentity(result.manifests, renderer);
      const found = foundGolden(file, read.documents, examples);
      if ("source" in found) cases.push(found);
      else tests.push({ kind: "golden", name: file, file, line: 1, status: "skipped", failures: [], note: found.reason, durationMs: 0 });
    }
    for (const c of cases) {
      const run = await runGolden(c, renderer, options.update === true);
      if ("status" in run) tests.push(run);
      else unreadable.push(run);
    }
  } finally {
    await renderer.close();
  }
  tests.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  return { tests, unreadable, durationMs: performance.now() - started };
}

/**
 * Files below the paths that are `crossplane render` output streams (the loader leaves them out
 * of the manifests, so only files that gave none are read again, and only those that carry the
 * composition resource name annotation are parsed).
 */
function renderOutputFiles(result: ValidatedTree, root: string, paths: string[]): string[] {
  const withManifests = new Set(result.manifests.map((m) => m.file));
  const out: string[] = [];
  for (const f of discover(paths, { root, ignore: result.config.ignore })) {
    if (withManifests.has(f.rel)) continue;
    let text: string;
    try {
      if (fs.statSync(f.abs).size > (result.config.maxFileBytes ?? 5 * 1024 * 1024)) continue;
      text = fs.readFileSync(f.abs, "utf8");
    } catch {
      continue;
    }
    if (!text.includes(COMPOSITION_RESOURCE_NAME)) continue;
    if (loadPath(f.abs, f.rel).role === "render-output") out.push(f.rel);
  }
  return out;
}

/** The top-most directories holding the tree's manifests. */
function manifestDirectories(result: ValidatedTree): string[] {
  const dirs = [...new Set(result.manifests.map((m) => path.posix.dirname(m.file)))].sort();
  const top: string[] = [];
  for (const d of dirs) if (!top.some((t) => t === "." || d === t || d.startsWith(`${t}/`))) top.push(d);
  return top;
}

/** Files that hold a CompositionTest and cannot be read: exit 2, with the line. */
function unreadableTestFiles(result: ValidatedTree, root: string): UnreadableTest[] {
  const out: UnreadableTest[] = [];
  const seen = new Set<string>();
  for (const f of result.findings) {
    if (f.severity !== "error" || !f.file || seen.has(f.file) || !/^(yaml|file)\//.test(f.rule) || f.rule === "file/too-large") continue;
    let text: string;
    try {
      text = fs.readFileSync(path.resolve(root, f.file), "utf8");
    } catch {
      continue;
    }
    // A broken golden file cannot be told from any other broken file; a configured one errs when it is run.
    if (!/["']?kind["']?\s*:\s*["']?CompositionTest\b/.test(text)) continue;
    seen.add(f.file);
    out.push({ file: f.file, line: f.line ?? 1, message: `cannot read the test file: ${f.message}` });
  }
  return out;
}
