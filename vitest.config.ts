import os from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Vitest's default (one worker fewer than the cores) is one worker on a 2-core machine, where
    // npm test then took 300 s; two take 195 s. Tests that start processes or servers wait on
    // them, so a second worker pays for itself even with two cores.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    testTimeout: 60_000,
    globalSetup: ["test/temp-dir.setup.ts"],
    // Tests need no network: function packages come only from the cache unless a test starts a
    // registry on 127.0.0.1 and says so.
    env: { COMPOSITION_CI_CACHE: "/tmp/composition-ci-test-cache", COMPOSITION_CI_OFFLINE: "1" },
  },
});
