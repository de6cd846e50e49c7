import fs from "node:fs";
import path from "node:path";

/** Where an output directory lists the files composition-ci wrote there last time. */
export const WRITTEN_LIST = ".composition-ci-written";

/**
 * Writes `files` (name → content) into `dir`, and removes the files it wrote there last time that
 * this run does not write again (a source that is gone leaves no stale stream behind). Only files
 * named in its own list are ever removed: whatever else is in the directory is not touched.
 */
export function writeOwnedFiles(dir: string, files: Map<string, string>): { removed: string[] } {
  fs.mkdirSync(dir, { recursive: true });
  const removed: string[] = [];
  for (const name of previouslyWritten(dir)) {
    if (files.has(name)) continue;
    const file = path.join(dir, name);
    if (fs.lstatSync(file, { throwIfNoEntry: false })?.isFile()) {
      fs.rmSync(file);
      removed.push(name);
    }
  }
  for (const [name, content] of files) fs.writeFileSync(path.join(dir, name), content);
  fs.writeFileSync(path.join(dir, WRITTEN_LIST), [...files.keys()].sort().join("\n") + "\n");
  return { removed };
}

/** The names in the directory's list: plain file names only (a hand-edited list cannot reach elsewhere). */
function previouslyWritten(dir: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, WRITTEN_LIST), "utf8");
  } catch {
    return [];
  }
  return text.split("\n").filter((name) => name && name !== WRITTEN_LIST && name === path.basename(name) && name !== "." && name !== "..");
}
