import fs from "node:fs";
import path from "node:path";

/** Where an output directory lists the files composition-ci wrote there last time. */
export const WRITTEN_LIST = ".composition-ci-written";

/**
 * Writes `files` (name → YAML stream) into `dir`, and removes the streams it wrote there last time
 * that this run does not write again (a source that is gone leaves no stale stream behind). Only
 * regular files named in its own list and holding a YAML stream are ever removed, and a symbolic
 * link in the directory is replaced, never written through: nothing outside it is touched.
 */
export function writeOwnedFiles(dir: string, files: Map<string, string>): { removed: string[] } {
  fs.mkdirSync(dir, { recursive: true });
  const removed: string[] = [];
  for (const name of previouslyWritten(dir)) {
    if (files.has(name)) continue;
    const file = path.join(dir, name);
    if (fs.lstatSync(file, { throwIfNoEntry: false })?.isFile() && fs.readFileSync(file, "utf8").startsWith("---")) {
      fs.rmSync(file);
      removed.push(name);
    }
  }
  for (const [name, content] of files) writeNotThroughLink(path.join(dir, name), content);
  writeNotThroughLink(path.join(dir, WRITTEN_LIST), [...files.keys()].sort().join("\n") + "\n");
  return { removed };
}

function writeNotThroughLink(file: string, content: string): void {
  if (fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) fs.rmSync(file);
  fs.writeFileSync(file, content);
}

/** The names in the directory's list: plain file names only (a hand-edited list cannot reach elsewhere). */
function previouslyWritten(dir: string): string[] {
  const list = path.join(dir, WRITTEN_LIST);
  if (!fs.lstatSync(list, { throwIfNoEntry: false })?.isFile()) return [];
  let text: string;
  try {
    text = fs.readFileSync(list, "utf8");
  } catch {
    return [];
  }
  return text.split("\n").filter((name) => name && name !== WRITTEN_LIST && name === path.basename(name) && name !== "." && name !== "..");
}
