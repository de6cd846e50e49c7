import type { Config } from "../config/config.js";
import type { Finding } from "../core/finding.js";
import type { Manifest } from "../manifest/manifest.js";
import type { KnownSecrets } from "../rendered/secrets.js";
import type { SchemaEngine } from "../validate/engine.js";
import type { RepoIndex } from "../validate/repo-index.js";
import type { SchemaRegistry } from "../validate/schemas/registry.js";
import type { Difference } from "./compare.js";

/** What `composition-ci test` runs and what it reports. */

export type TestKind = "CompositionTest" | "golden";

/**
 * passed; failed (an assertion or a golden comparison found differences); error (the test could
 * not be run to a verdict: a file it names is missing, the render failed); skipped (nothing to
 * compare with, said why).
 */
export type TestStatus = "passed" | "failed" | "error" | "skipped";

/** One reason a test did not pass: an object that differs, is missing or is extra, or an error. */
export interface TestFailure {
  /** The object concerned, as people name it: `apps/v1 Deployment (composition resource deployment)`. */
  object?: string;
  /** What is wrong, in one line, when it is not a field difference (a missing object, a render error). */
  message?: string;
  /** Field differences of that object. */
  differences?: Difference[];
  /** Where to look: the assertion in the test file, the object in the golden file. */
  file?: string;
  line?: number;
}

export interface TestResult {
  kind: TestKind;
  /** The CompositionTest's metadata.name; for a golden file, its path. */
  name: string;
  /** The test file (the CompositionTest's file, the golden file), repository-relative. */
  file: string;
  line: number;
  status: TestStatus;
  /** The source rendered: `WebApp storefront (examples/crossplane/xr.yaml)`. */
  source?: string;
  failures: TestFailure[];
  /** Why it was skipped, or notes (golden: the flags it was rendered with). */
  note?: string;
  durationMs: number;
  /** Set when `--update` wrote the golden file. */
  updated?: boolean;
}

/** A test file that cannot be read (YAML that does not parse, a CompositionTest of the wrong shape): exit 2. */
export interface UnreadableTest {
  file: string;
  line: number;
  message: string;
}

export interface TestReport {
  tests: TestResult[];
  unreadable: UnreadableTest[];
  durationMs: number;
}

export interface TestCounts {
  tests: number;
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  unreadable: number;
}

export function countTests(report: TestReport): TestCounts {
  const count = (s: TestStatus) => report.tests.filter((t) => t.status === s).length;
  return {
    tests: report.tests.length,
    passed: count("passed"),
    failed: count("failed"),
    errors: count("error"),
    skipped: count("skipped"),
    unreadable: report.unreadable.length,
  };
}

/** 0 when every test passed (or was skipped), 1 when one failed or erred, 2 when a test file cannot be read. */
export function testExitCode(report: TestReport): number {
  if (report.unreadable.length) return 2;
  return report.tests.some((t) => t.status === "failed" || t.status === "error") ? 1 : 0;
}

/** What the tests need of a validated tree: run/validate.ts's ValidateResult is one. */
export interface ValidatedTree {
  findings: Finding[];
  manifests: Manifest[];
  config: Config;
  index: RepoIndex;
  registry: SchemaRegistry;
  engine: SchemaEngine;
  /** The secret values the validation found in the manifests, when it kept them. */
  secrets?: KnownSecrets;
}
