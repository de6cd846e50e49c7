/**
 * The test runner's one door: `runTests` finds a validated tree's tests (CompositionTest objects
 * and golden files) and runs them, `formatTestReport` prints what they found, `checkTests` is
 * check's part. Used by `composition-ci test`, `check` and the Action's `mode: test`; nothing
 * outside src/testing imports its other files.
 */

export { runTests, type RunTestsOptions } from "./run.js";
export { checkTests } from "./check.js";
export type { TestReport, TestResult, TestFailure, TestStatus, TestKind, UnreadableTest, TestCounts } from "./types.js";
export { countTests, testExitCode } from "./types.js";
export { formatTestReport, testFindings, testSummaryLine, TEST_FORMATS, type TestFormat } from "./report.js";
export { parseTestsConfig, type TestsConfig, type GoldenEntry } from "../config/tests.js";
