import { parseArgs } from "node:util";
import { parseCrossplaneVersion } from "../core/crossplane-releases.js";

/**
 * The `crossplane render` flags a golden file was made with (config `tests.golden[].flags`), so a
 * script's `crossplane render xr.yaml composition.yaml functions.yaml -x --xrd=xrd.yaml` maps to
 * `flags: [-x, --xrd=xrd.yaml]`. Paths are relative to the repository root.
 */
export interface GoldenFlags {
  includeFunctionResults: boolean;
  includeFullXr: boolean;
  includeContext: boolean;
  observedResources: string[];
  requiredResources: string[];
  contextFiles: [string, string][];
  contextValues: [string, string][];
  functionCredentials?: string;
  xrd?: string;
  /** Ours: the Composition to render with (crossplane render's second argument); picked from the repository otherwise. */
  composition?: string;
  functionAnnotations: [string, string][];
  /** Per function call, in milliseconds. */
  timeoutMs?: number;
  /** --crossplane-version: the release that wrote the golden file (recognised from its shape otherwise). */
  crossplaneVersion?: string;
}

const OPTIONS = {
  "include-function-results": { type: "boolean", short: "r" },
  "include-full-xr": { type: "boolean", short: "x" },
  "include-context": { type: "boolean", short: "c" },
  "observed-resources": { type: "string", short: "o", multiple: true },
  "required-resources": { type: "string", short: "e", multiple: true },
  "extra-resources": { type: "string", multiple: true },
  "context-files": { type: "string", multiple: true },
  "context-values": { type: "string", multiple: true },
  "function-credentials": { type: "string" },
  "function-annotations": { type: "string", short: "a", multiple: true },
  xrd: { type: "string" },
  composition: { type: "string" },
  timeout: { type: "string" },
  "crossplane-version": { type: "string" },
  // crossplane render's engine and project flags: accepted and ignored (composition-ci renders in-process).
  "crossplane-image": { type: "string" },
  "crossplane-binary": { type: "string" },
  "crossplane-docker-network": { type: "string" },
  "project-file": { type: "string", short: "f" },
  "cache-dir": { type: "string" },
  "max-concurrency": { type: "string" },
} as const;

export const GOLDEN_FLAG_NAMES = Object.keys(OPTIONS).filter(
  (k) => (k === "crossplane-version" || !k.startsWith("crossplane-")) && !["project-file", "cache-dir", "max-concurrency"].includes(k),
);

export function emptyGoldenFlags(): GoldenFlags {
  return {
    includeFunctionResults: false,
    includeFullXr: false,
    includeContext: false,
    observedResources: [],
    requiredResources: [],
    contextFiles: [],
    contextValues: [],
    functionAnnotations: [],
  };
}

/** Parses the flags; throws an Error saying what is wrong. */
export function parseGoldenFlags(flags: string[]): GoldenFlags {
  let values;
  try {
    ({ values } = parseArgs({ args: flags, options: OPTIONS, allowPositionals: false, strict: true }));
  } catch (err) {
    throw new Error(`${(err as Error).message.split("\n")[0]} (known flags: ${GOLDEN_FLAG_NAMES.map((n) => `--${n}`).join(", ")})`);
  }
  const pairs = (flag: string, list: string[] | undefined): [string, string][] =>
    (list ?? []).map((s) => {
      const eq = s.indexOf("=");
      if (eq <= 0) throw new Error(`--${flag} takes KEY=VALUE (got "${s}")`);
      return [s.slice(0, eq), s.slice(eq + 1)];
    });
  const split = (list: string[] | undefined) => (list ?? []).flatMap((p) => p.split(",")).filter(Boolean);
  const out: GoldenFlags = {
    includeFunctionResults: values["include-function-results"] === true,
    includeFullXr: values["include-full-xr"] === true,
    includeContext: values["include-context"] === true,
    observedResources: split(values["observed-resources"]),
    requiredResources: [...split(values["required-resources"]), ...split(values["extra-resources"])],
    contextFiles: pairs("context-files", values["context-files"]),
    contextValues: pairs("context-values", values["context-values"]),
    functionAnnotations: pairs("function-annotations", values["function-annotations"]),
  };
  if (values["function-credentials"]) out.functionCredentials = values["function-credentials"];
  if (values.xrd) out.xrd = values.xrd;
  if (values.composition) out.composition = values.composition;
  if (values.timeout !== undefined) out.timeoutMs = parseTimeout(values.timeout);
  if (values["crossplane-version"] !== undefined) {
    try {
      parseCrossplaneVersion(values["crossplane-version"]);
    } catch (err) {
      throw new Error(`--crossplane-version: ${(err as Error).message}`);
    }
    out.crossplaneVersion = values["crossplane-version"];
  }
  return out;
}

/** Go-style durations: `60s`, `1m30s`, `500ms`. */
export function parseTimeout(text: string): number {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    total += Number(m[1]) * units[m[2]!]!;
    consumed = re.lastIndex;
  }
  if (consumed !== text.length || consumed === 0 || total <= 0) throw new Error(`--timeout: "${text}" is not a duration like 60s, 2m or 500ms`);
  return total;
}
