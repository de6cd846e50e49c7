import { describe, expect, it } from "vitest";
import { runCli, tempRepo } from "../helpers.js";

describe("a path that is not there is a usage error in every command", () => {
  for (const argv of [["validate", "nope"], ["check", "nope"], ["test", "nope"], ["render", "--all", "nope"], ["drift", "nope", "--snapshot", "s"], ["functions", "pull", "nope"]]) {
    it(argv.join(" "), async () => {
      const { code, stderr } = await runCli(argv, tempRepo({ "a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n" }));
      expect(code).toBe(2);
      expect(stderr).toMatch(/^composition-ci: path not found: .*nope\n$/);
    });
  }
});
