import { parseGoldenFlags } from "./golden-flags.js";

/** `tests:` of `.composition-ci.yaml`. */
export interface TestsConfig {
  /** Golden files mapped from example XRs. */
  golden: GoldenEntry[];
}

/**
 * `{xr: GLOB, output: PATTERN, flags: [...]}`: each XR (or claim) in a file the glob matches
 * (repository-relative) is rendered with the flags and compared with the file the pattern names.
 */
export interface GoldenEntry {
  xr: string;
  output: string;
  flags: string[];
}

/** Placeholders of an output pattern. */
export const OUTPUT_PLACEHOLDERS = ["dir", "base", "name", "namespace", "kind"] as const;

/** Reads the `tests:` value; `fail` throws the config error (with the line). */
export function parseTestsConfig(value: unknown, fail: (msg: string) => never): TestsConfig {
  if (!value || typeof value !== "object" || Array.isArray(value)) fail("must be a mapping with golden: [{xr, output, flags}]");
  const unknown = Object.keys(value as object).filter((k) => k !== "golden");
  if (unknown.length) fail(`unknown key "${unknown[0]}" (known: golden)`);
  const golden = (value as { golden?: unknown }).golden ?? [];
  if (!Array.isArray(golden)) fail("golden must be a list of {xr, output, flags}");
  return {
    golden: (golden as unknown[]).map((raw, i) => {
      const at = `golden[${i}]`;
      if (!raw || typeof raw !== "object" || Array.isArray(raw)) fail(`${at} must be a mapping {xr, output, flags}`);
      const e = raw as Record<string, unknown>;
      const extra = Object.keys(e).filter((k) => !["xr", "output", "flags"].includes(k));
      if (extra.length) fail(`${at}: unknown key "${extra[0]}" (known: xr, output, flags)`);
      if (typeof e.xr !== "string" || !e.xr) fail(`${at}.xr must be a glob of XR files, such as examples/**/xr.yaml`);
      if (typeof e.output !== "string" || !e.output) fail(`${at}.output must be a path pattern, such as {dir}/{base}.golden.yaml`);
      const output = e.output as string;
      for (const m of output.matchAll(/\{([^}]*)\}/g)) {
        if (!(OUTPUT_PLACEHOLDERS as readonly string[]).includes(m[1]!))
          fail(`${at}.output: unknown placeholder {${m[1]}} (known: ${OUTPUT_PLACEHOLDERS.map((p) => `{${p}}`).join(", ")})`);
      }
      if (output.startsWith("/") || output.split("/").includes("..")) fail(`${at}.output must stay inside the repository (a relative path without ..)`);
      const flags = e.flags ?? [];
      if (!Array.isArray(flags) || !flags.every((f) => typeof f === "string"))
        fail(`${at}.flags must be a list of crossplane render flags, such as [-x, --xrd=apis/xrd.yaml]`);
      try {
        parseGoldenFlags(flags as string[]);
      } catch (err) {
        fail(`${at}.flags: ${(err as Error).message}`);
      }
      return { xr: e.xr as string, output, flags: flags as string[] };
    }),
  };
}
