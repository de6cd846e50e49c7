import { describe, expect, it } from "vitest";
import { runCli, tempRepo } from "../helpers.js";

describe("function serve", () => {
  it("serving without TLS is asked for with --insecure, never a default", async () => {
    const { code, stderr } = await runCli(["function", "serve", "function-auto-ready", "--address", "127.0.0.1:0"], tempRepo({}));
    expect(code).toBe(2);
    expect(stderr).toContain("function serve needs --insecure");
  });
});
