import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    // Tests need no network: function packages come only from the cache unless a test starts a
    // registry on 127.0.0.1 and says so.
    env: { COMPOSITION_CI_CACHE: "/tmp/composition-ci-test-cache", COMPOSITION_CI_OFFLINE: "1" },
  },
});
