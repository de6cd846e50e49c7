import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { emptyConfig, loadConfig } from "../../src/config/config.js";
import { launchOf, parseElf } from "../../src/runtimes/executable.js";
import { isTrustedPackage, narrowToBase } from "../../src/trust.js";
import { tempRepo } from "../helpers.js";

describe("which function packages are trusted", () => {
  it.each([
    ["xpkg.crossplane.io/crossplane-contrib/function-status-transformer:v0.4.0", true],
    ["xpkg.upbound.io/crossplane-contrib/function-sequencer:v0.2.1", true],
    // They evaluate code or reach out from their input: a pull request could make them run anything.
    ["xpkg.crossplane.io/crossplane-contrib/function-kcl:v0.12.0", false],
    ["xpkg.upbound.io/crossplane-contrib/function-shell:v0.6.0", false],
    ["xpkg.upbound.io/crossplane-contrib/function-go-templating:v0.10.0", false],
    ["xpkg.upbound.io/upbound/function-msgraph:v0.1.0", false],
    ["xpkg.upbound.io/upbound/provider-aws:v1", false],
    ["xpkg.upbound.io/acme/function-x:v1", false],
    ["crossplane-contrib/function-kcl:v0.12.0", false], // Docker Hub, not the Crossplane registry
    ["ghcr.io/acme/function-x:v1", false],
  ])("%s → %s by default", (ref, trusted) => {
    expect(isTrustedPackage(ref, [], false)).toBe(trusted);
  });

  it("the config adds globs (function-kcl once the base branch says so), pins trust one digest, allow-exec trusts everything", () => {
    expect(isTrustedPackage("xpkg.crossplane.io/crossplane-contrib/function-kcl:v0.12.0", ["xpkg.crossplane.io/crossplane-contrib/function-kcl"], false)).toBe(
      true,
    );
    const digest = `sha256:${"b".repeat(64)}`;
    expect(isTrustedPackage("ghcr.io/acme/function-x:v1", ["ghcr.io/acme/function-*"], false)).toBe(true);
    expect(isTrustedPackage("ghcr.io/acme/function-x:v1", [`ghcr.io/acme/function-x@${digest}`], false)).toBe(false);
    expect(isTrustedPackage(`ghcr.io/acme/function-x@${digest}`, [`ghcr.io/acme/function-x@${digest}`], false)).toBe(true);
    expect(isTrustedPackage("ghcr.io/evil/function-x:v1", ["ghcr.io/acme/*"], false)).toBe(false);
    expect(isTrustedPackage("ghcr.io/evil/function-x:v1", [], true)).toBe(true);
  });

  it("functions.trusted is read with its line on a mistake, and a pull request cannot widen it", () => {
    const ok = loadConfig(tempRepo({ ".composition-ci.yaml": "functions:\n  trusted: [ghcr.io/acme/*]\n  function-x: {builtin: function-auto-ready}\n" }));
    expect(ok.trustedFunctions).toEqual(["ghcr.io/acme/*"]);
    expect(Object.keys(ok.functions)).toEqual(["function-x"]);
    expect(() => loadConfig(tempRepo({ ".composition-ci.yaml": "functions:\n  trusted: ['*']\n" }))).toThrow(/must name a registry host and a repository/);
    for (const wide of ["?*/**", "{a,b}.io/x/*", "[x].io/*"])
      expect(() => loadConfig(tempRepo({ ".composition-ci.yaml": `functions:\n  trusted: ['${wide}']\n` })), wide).toThrow(/must name a registry host/);
    expect(() => loadConfig(tempRepo({ ".composition-ci.yaml": "functions:\n  trusted: [ghcr.io/a/b@sha256:xyz]\n" }))).toThrow(/a pin must be/);
    const base = { ...emptyConfig(), trustedFunctions: ["ghcr.io/acme/*"] };
    const head = { ...emptyConfig(), trustedFunctions: ["ghcr.io/acme/*", "ghcr.io/evil/*"] };
    expect(narrowToBase(head, base).trustedFunctions).toEqual(["ghcr.io/acme/*"]);
  });

  it("a pull request cannot hide its own change from the review, be judged as another release, or change who creates composed resources", () => {
    const base = { ...emptyConfig(), crossplaneRelease: "v2.5", crossplaneServiceAccount: "crossplane-system/crossplane" };
    const head = { ...emptyConfig(), diff: { ignore: [{ kind: "Deployment" }] }, crossplaneRelease: "v2.2", crossplaneServiceAccount: "team/admin" };
    const narrowed = narrowToBase(head, base);
    expect(narrowed.diff).toBeUndefined();
    expect(narrowed.crossplaneRelease).toBe("v2.5");
    expect(narrowed.crossplaneServiceAccount).toBe("crossplane-system/crossplane");
  });
});

/** A minimal 64-bit little-endian ELF header with one PT_INTERP program header. */
function elf(machine: number, interpreter?: string): Buffer {
  const b = Buffer.alloc(0x200);
  b.writeUInt32BE(0x7f454c46, 0);
  b[4] = 2;
  b[5] = 1;
  b.writeUInt16LE(machine, 18);
  b.writeBigUInt64LE(64n, 32);
  b.writeUInt16LE(56, 54);
  b.writeUInt16LE(interpreter ? 1 : 0, 56);
  if (interpreter) {
    b.writeUInt32LE(3, 64);
    b.writeBigUInt64LE(0x100n, 64 + 8);
    b.writeBigUInt64LE(BigInt(interpreter.length + 1), 64 + 32);
    b.write(interpreter, 0x100, "latin1");
  }
  return b;
}

describe("whether an image's entrypoint can run here", () => {
  function image(program: Buffer | string) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "cci-root-"));
    fs.writeFileSync(path.join(root, "function"), program, { mode: 0o755 });
    return root;
  }

  it("reads the machine and the loader of an ELF file", () => {
    expect(parseElf(elf(0xb7, "/lib/ld-linux-aarch64.so.1"), "")).toEqual({ machine: "arm64", interpreter: "/lib/ld-linux-aarch64.so.1" });
    expect(parseElf(elf(0x3e), "")).toEqual({ machine: "amd64" });
  });

  it("another architecture, a missing loader, no entrypoint: each says why", () => {
    const other = process.arch === "arm64" ? 0x3e : 0xb7;
    expect(launchOf(image(elf(other)), { Entrypoint: ["/function"] })).toEqual({ cannot: expect.stringMatching(/is a linux\/\w+ binary and this runner is/) });
    if (process.platform === "linux") {
      const own = process.arch === "arm64" ? 0xb7 : 0x3e;
      expect(launchOf(image(elf(own, "/lib/ld-nowhere.so.9")), { Entrypoint: ["/function"] })).toEqual({
        cannot: "it needs the dynamic loader /lib/ld-nowhere.so.9, which neither this runner nor the image has",
      });
      const root = image(elf(own));
      expect(launchOf(root, { Entrypoint: ["/function", "--flag"] })).toEqual({ command: [path.join(root, "function"), "--flag"], cwd: root });
    }
    expect(launchOf(image("#!/bin/sh\n"), {})).toEqual({ cannot: "the image has no entrypoint" });
    expect(launchOf(image("#!/bin/sh\n"), { Entrypoint: ["/missing"] })).toEqual({ cannot: "its entrypoint /missing is not in the image" });
  });
});
