import { afterAll, describe, expect, it } from "vitest";
import { CONFORMANCE, HAS_CONFORMANCE, readTable, runKubernetesCase, runKyvernoCase } from "./harness.js";

/**
 * The upstream tables of ../shared/conformance/policies as data (see its README): every case that
 * needs no cluster must agree with upstream. Cases that need the cluster (needsCluster) are
 * skipped and counted; the few that cannot pass are listed below with the reason.
 */

const TABLES = ["vap-k8s", "vap", "kyverno-vpol", "kyverno-cli-vpol", "kyverno-cpol-cel", "kyverno-cli-cpol-cel", "kyverno-cpol", "kyverno-cli-cpol"];

const EXPECTED_FAILURES: Record<string, string> = {
  "kyverno-cli-cpol/test/cli/test/manifests/verify-signature": "validate.manifests verifies signatures with keys and the cluster: reported as not evaluated",
};

if (!HAS_CONFORMANCE) console.log(`skipping the policy conformance tables: ${CONFORMANCE} is absent`);

const counts: Record<string, { cases: number; passed: number; expectedFailures: number; needsCluster: number; rows: number; unmatched: number }> = {};

describe.skipIf(!HAS_CONFORMANCE)("policy conformance tables", () => {
  for (const table of TABLES) {
    describe(table, () => {
      const cases = HAS_CONFORMANCE ? readTable(table) : [];
      const count = (counts[table] = { cases: cases.length, passed: 0, expectedFailures: 0, needsCluster: 0, rows: 0, unmatched: 0 });
      for (const c of cases) {
        const key = `${table}/${c.name}`;
        if (c.needsCluster) {
          count.needsCluster++;
          it.skip(`${c.name} (needs the cluster: ${(c.needs ?? []).join(", ")})`, () => {});
          continue;
        }
        const run = () => (table === "vap-k8s" ? runKubernetesCase(c) : runKyvernoCase(c));
        if (EXPECTED_FAILURES[key]) {
          count.expectedFailures++;
          it(`${c.name} (expected failure: ${EXPECTED_FAILURES[key]})`, () => {
            expect(run().ok, "it passes now: remove it from EXPECTED_FAILURES").toBe(false);
          });
          continue;
        }
        it(c.name, () => {
          const outcome = run();
          count.rows += outcome.rows;
          count.unmatched += outcome.unmatched.length;
          expect(outcome.problems).toEqual([]);
          count.passed++;
        });
      }
    });
  }
});

afterAll(() => {
  if (!HAS_CONFORMANCE) return;
  const lines = Object.entries(counts).map(
    ([t, c]) =>
      `${t.padEnd(22)} cases ${String(c.cases).padStart(3)}  passed ${String(c.passed).padStart(3)}  expected failures ${c.expectedFailures}  needs the cluster (skipped) ${c.needsCluster}  rows ${c.rows} (no rule applied here: ${c.unmatched})`,
  );
  console.log(`policy conformance:\n${lines.join("\n")}`);
});
