import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SCENARIOS, scenarioMarkdown, type ScenarioName } from "../../scripts/screenshot-scenarios.js";
import { REPO } from "../helpers.js";

/**
 * The README's pictures (docs/images/<scenario>.png) are drawn from the PR comment's markdown,
 * kept beside them (<scenario>.md): a comment that would look different today fails here, until
 * `npm run screenshot` draws them again (issue 32).
 */
describe("the screenshots", () => {
  it.each(Object.keys(SCENARIOS) as ScenarioName[])(
    "%s is drawn from the comment composition-ci writes today",
    async (name) => {
      const kept = fs.readFileSync(path.join(REPO, "docs/images", `${name}.md`), "utf8");
      expect(await scenarioMarkdown(name), `docs/images/${name}.png is stale: run npm run screenshot`).toBe(kept);
      expect(fs.existsSync(path.join(REPO, "docs/images", `${name}.png`))).toBe(true);
    },
    60_000,
  );
});
