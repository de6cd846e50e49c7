// Bundles the CLI (dist/cli-main.js, started by dist/cli.js) and the Action (dist/index.js),
// dependencies included, with esbuild.
// `node scripts/bundle.mjs OUTDIR` writes elsewhere (the tests bundle the current source).
import { build } from "esbuild";

const outdir = process.argv[2] ?? "dist";

await build({
  entryPoints: { "cli-main": "src/cli.ts", index: "src/index.ts" },
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
});

// The built-in schemas' validators, compiled once here and shipped (scripts/precompile.ts).
const { execFileSync } = await import("node:child_process");
execFileSync(process.execPath, ["--import", "tsx", "scripts/precompile.ts", outdir], { stdio: "inherit" });

// The CLI is the package's bin, a launcher: executable, so that `npx composition-ci` runs it from
// a fresh clone. Its #! line keeps V8's young generation small: by default it grows to hundreds of
// MiB while a large repository is parsed (40x the e2e corpus peaked at 325 MiB, 205 with this, in
// the same time); `env -S` splits the arguments (GNU and BSD env). It turns on Node's compile
// cache before the bundle loads (a second run loads it in about 50 ms less).
const { chmodSync, writeFileSync } = await import("node:fs");
writeFileSync(
  `${outdir}/cli.js`,
  [
    "#!/usr/bin/env -S node --max-semi-space-size=8",
    "// composition-ci: Node's compile cache on (Node 22.1 and later), then the bundle (scripts/bundle.mjs).",
    'import module from "node:module";',
    "module.enableCompileCache?.();",
    'await import("./cli-main.js");',
    "",
  ].join("\n"),
);
chmodSync(`${outdir}/cli.js`, 0o755);
