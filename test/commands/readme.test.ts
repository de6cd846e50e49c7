import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, runCli } from "../helpers.js";

/**
 * Every `$ npx composition-ci …` the README shows on the examples runs verbatim and prints what the
 * README says it prints (issue 32: "every command the README suggests runs verbatim"). Commands
 * on other repositories or on a changed working tree are left out; an output shown with `…` is
 * compared up to it.
 */

const README = fs.readFileSync(path.join(REPO, "README.md"), "utf8");

/** Each shown command with the output lines under it, up to the block's end or a `…`. */
function shownCommands(): { argv: string[]; output: string[] }[] {
  const out: { argv: string[]; output: string[] }[] = [];
  const lines = README.split("\n");
  lines.forEach((line, i) => {
    const m = /^\$ npx composition-ci (.+)$/.exec(line);
    if (!m || m[1]!.includes("diff --base")) return;
    const output: string[] = [];
    for (const next of lines.slice(i + 1)) {
      if (next.startsWith("```") || next === "…") break;
      output.push(next);
    }
    out.push({ argv: m[1]!.split(/\s+/), output });
  });
  return out;
}

describe("the README's commands", () => {
  const commands = shownCommands();

  it("are found (check, validate, render, drift on the examples)", () => {
    expect(commands.map((c) => c.argv[0])).toEqual(["check", "validate", "render", "drift"]);
  });

  it.each(commands.map((c) => [c.argv.join(" "), c] as const))(
    "%s runs verbatim and prints what the README shows",
    async (_, { argv, output }) => {
      const { code, stdout, stderr } = await runCli(argv, REPO);
      expect(code, stderr).toBe(0);
      // check writes its progress lines to stderr, as a terminal shows them before the report.
      const printed = `${argv[0] === "check" ? stderr : ""}${stdout}`.split("\n");
      expect(printed.slice(0, output.length)).toEqual(output);
    },
    60_000,
  );
});
