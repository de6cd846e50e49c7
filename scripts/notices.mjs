// The third-party notice of the bundles: every npm package whose code esbuild put in them, read
// from esbuild's metafile, with its version, its declared license and the text of its license and
// notice files. Written by scripts/bundle.mjs next to the bundles (dist/THIRD_PARTY_NOTICES.md).
// The text depends only on the metafile and the installed packages (sorted, no dates, no absolute
// paths), so two builds of one tree give the same bytes.
import fs from "node:fs";
import path from "node:path";

export const NOTICES_FILE = "THIRD_PARTY_NOTICES.md";

// Files of a package's root directory that carry its license or its notices (LICENSE, LICENSE.md,
// LICENSE-MIT.txt, LICENCE, NOTICE, COPYING, ...).
const LEGAL_FILE = /^(licen[cs]e|notice|copying)([-._].*)?$/i;

// The package directory a bundled file belongs to: the directory after its last node_modules/
// (two levels for a scoped name). Nested copies (a/node_modules/b) are packages of their own.
function packageDir(input) {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input.replaceAll("\\", "/"));
  return match ? match[1] : undefined;
}

function licenseOf(pkg) {
  if (typeof pkg.license === "string") return pkg.license;
  if (pkg.license && typeof pkg.license.type === "string") return pkg.license.type;
  if (Array.isArray(pkg.licenses)) {
    const types = pkg.licenses.map((l) => (typeof l === "string" ? l : l?.type)).filter(Boolean);
    if (types.length) return types.length === 1 ? types[0] : `(${types.join(" OR ")})`;
  }
  return undefined;
}

function repositoryOf(pkg) {
  const repo = typeof pkg.repository === "string" ? pkg.repository : pkg.repository?.url;
  const url = repo ?? (typeof pkg.homepage === "string" ? pkg.homepage : undefined);
  if (!url) return undefined;
  return url
    .replace(/^git\+/, "")
    .replace(/^git:\/\//, "https://")
    .replace(/^ssh:\/\/git@github\.com\//, "https://github.com/")
    .replace(/^git@github\.com:/, "https://github.com/")
    .replace(/^github:/, "https://github.com/")
    .replace(/^(?!https?:)([\w.-]+\/[\w.-]+)$/, "https://github.com/$1")
    .replace(/\.git$/, "");
}

const byteOrder = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/** The text as a fenced block whose fence no run of backticks inside it can close. */
function fenced(text) {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text}\n${fence}`;
}

const cell = (text) => String(text).replaceAll("|", "\\|");

/**
 * The bundled packages, from an esbuild metafile whose paths are relative to `cwd`: one entry per
 * name and version, with the bundles (output file names) its code is in. A package whose files
 * all tree-shook to nothing is not in any bundle and not listed.
 */
export function bundledPackages(metafile, cwd = process.cwd()) {
  const dirs = new Map(); // package directory -> output file names
  for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
      const dir = packageDir(input);
      if (!dir || bytesInOutput === 0) continue;
      if (!dirs.has(dir)) dirs.set(dir, new Set());
      dirs.get(dir).add(path.basename(output));
    }
  }
  const packages = new Map(); // name@version -> package
  for (const dir of [...dirs.keys()].sort(byteOrder)) {
    const root = path.resolve(cwd, dir);
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
    const name = pkg.name ?? dir.slice(dir.lastIndexOf("node_modules/") + "node_modules/".length);
    const version = pkg.version ?? "unknown";
    const key = `${name}@${version}`;
    const known = packages.get(key);
    if (known) {
      for (const bundle of dirs.get(dir)) known.bundles.add(bundle);
      continue;
    }
    const files = fs
      .readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isFile() && LEGAL_FILE.test(e.name))
      .map((e) => e.name)
      .sort(byteOrder)
      .map((file) => ({
        file,
        text: fs
          .readFileSync(path.join(root, file), "utf8")
          .replace(/^\uFEFF/, "")
          .replace(/\r\n?/g, "\n")
          .replace(/^\n+/, "")
          .trimEnd(),
      }));
    packages.set(key, { name, version, license: licenseOf(pkg), repository: repositoryOf(pkg), files, bundles: new Set(dirs.get(dir)) });
  }
  return [...packages.values()].sort((a, b) => byteOrder(a.name, b.name) || byteOrder(a.version, b.version));
}

/** The notice's markdown for bundledPackages' list. */
export function renderNotices(packages) {
  const lines = [
    "# Third-party notices",
    "",
    "composition-ci's bundles (`cli-main.js`, the CLI, and `index.js`, the Action) include code from",
    `the ${packages.length} npm packages below, each under its own license. composition-ci itself is licensed under the`,
    "Apache License 2.0 (LICENSE at the repository's root).",
    "",
    "Written by scripts/bundle.mjs from esbuild's metafile each time the bundles are built; do not",
    "edit it by hand. The license texts are the packages' own files, as installed.",
    "",
    "| Package | Version | License | In |",
    "| --- | --- | --- | --- |",
  ];
  for (const p of packages)
    lines.push(`| ${cell(p.name)} | ${cell(p.version)} | ${cell(p.license ?? "not declared")} | ${[...p.bundles].sort(byteOrder).join(", ")} |`);
  for (const p of packages) {
    lines.push("", `## ${p.name} ${p.version}`, "", `- License: ${p.license ?? "not declared in its package.json"}`);
    if (p.repository) lines.push(`- Source: ${p.repository}`);
    if (p.files.length === 0) lines.push("", "The package ships no license or notice file; its package.json declares the license above.");
    for (const { file, text } of p.files) lines.push("", `### ${file}`, "", fenced(text));
  }
  return `${lines.join("\n")}\n`;
}

/** Writes OUTDIR/THIRD_PARTY_NOTICES.md for an esbuild metafile; returns the packages listed. */
export function writeNotices(metafile, outdir, cwd = process.cwd()) {
  const packages = bundledPackages(metafile, cwd);
  const missing = packages.filter((p) => !p.license && p.files.length === 0);
  for (const p of missing) process.stderr.write(`bundle: ${p.name} ${p.version} declares no license and ships no license file\n`);
  fs.writeFileSync(path.join(outdir, NOTICES_FILE), renderNotices(packages));
  return packages;
}
