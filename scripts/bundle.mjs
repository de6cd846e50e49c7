// Bundles the CLI (dist/cli-main.js, started by dist/cli.js) and the Action (dist/index.js),
// dependencies included, with esbuild, and the third-party notice of what they include
// (OUTDIR/THIRD_PARTY_NOTICES.md, scripts/notices.mjs).
// `node scripts/bundle.mjs OUTDIR` writes elsewhere (the tests bundle the current source).
import { build } from "esbuild";
import { writeNotices } from "./notices.mjs";

const outdir = process.argv[2] ?? "dist";

const LAUNCHER = `#!/usr/bin/env node
// composition-ci's bin (written by scripts/bundle.mjs): the bundle in a node with a small young
// generation, and Node's compile cache on (Node 22.1 and later).
import module from "node:module";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const HEAP = "--max-semi-space-size=8";
if (process.execArgv.length === 0 && !process.env.COMPOSITION_CI_NO_REEXEC) {
  const child = spawn(process.execPath, [HEAP, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("error", (err) => {
    process.stderr.write(\`composition-ci: cannot start node: \${err.message}\\n\`);
    process.exit(2);
  });
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
} else {
  module.enableCompileCache?.();
  await import("./cli-main.js");
}
`;

// This build's identity (its source and its locked dependencies): the work store (src/cache/store.ts)
// reads only what the same build wrote.
const { createHash } = await import("node:crypto");
const { readdirSync, readFileSync } = await import("node:fs");
const buildHash = createHash("sha256");
const sourceFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sourceFiles(`${dir}/${e.name}`) : [`${dir}/${e.name}`]))
    .sort();
for (const file of [...sourceFiles("src"), "package-lock.json"]) buildHash.update(`${file}\0`).update(readFileSync(file));

const { metafile } = await build({
  entryPoints: { "cli-main": "src/cli.ts", index: "src/index.ts" },
  define: { __COMPOSITION_CI_BUILD__: JSON.stringify(buildHash.digest("hex").slice(0, 16)) },
  outdir,
  bundle: true,
  platform: "node",
  target: "node22",
  format: "esm",
  splitting: false,
  legalComments: "none",
  // A dependency requires "punycode", which Node resolves to its deprecated built-in (a warning on
  // every run); the trailing slash makes it the npm package of the same name.
  alias: { punycode: "punycode/" },
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: "warning",
  // Which files went into which bundle: the third-party notice lists their packages.
  metafile: true,
});

// Every npm package whose code is in the bundles, with its license and its license and notice
// files' text, sorted (two builds write the same bytes).
writeNotices(metafile, outdir);

// The built-in schemas' validators, compiled once here and shipped (scripts/precompile.ts).
const { execFileSync } = await import("node:child_process");
execFileSync(process.execPath, ["--import", "tsx", "scripts/precompile.ts", outdir], { stdio: "inherit" });

// The CLI is the package's bin, a launcher: executable, so that `npx composition-ci` runs it from
// a fresh clone. It runs the bundle in a node with a small young generation: by default V8 grows
// it to hundreds of MiB while a large repository is parsed (40x the e2e corpus peaked at 325 MiB,
// 205 with the flag, in the same time). The flag cannot be set once node runs, and `env -S` in the
// #! line is not portable (BusyBox, the BSDs), so the launcher starts node again with it, once
// (about 25 ms), unless node was started with flags of its own. It turns on Node's compile cache
// before the bundle loads (a second run loads it in about 50 ms less).
const { chmodSync, writeFileSync } = await import("node:fs");
writeFileSync(`${outdir}/cli.js`, LAUNCHER);
chmodSync(`${outdir}/cli.js`, 0o755);
