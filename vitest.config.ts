import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    env: { COMPOSITION_CI_CACHE: "/tmp/composition-ci-test-cache" },
  },
});
