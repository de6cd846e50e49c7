/** Go's path package (slash-separated; filepath on Linux is the same). */

/** path.Clean */
export function clean(p: string): string {
  if (p === "") return ".";
  const rooted = p[0] === "/";
  const parts = p.split("/");
  const out: string[] = [];
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!rooted) out.push("..");
      continue;
    }
    out.push(part);
  }
  const s = (rooted ? "/" : "") + out.join("/");
  return s === "" ? "." : s;
}

/** path.Base */
export function base(p: string): string {
  if (p === "") return ".";
  p = p.replace(/\/+$/, "");
  const i = p.lastIndexOf("/");
  if (i >= 0) p = p.slice(i + 1);
  return p === "" ? "/" : p;
}

/** path.Dir */
export function dir(p: string): string {
  const i = p.lastIndexOf("/");
  return clean(p.slice(0, i + 1));
}

/** path.Ext */
export function ext(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== "/"; i--) if (p[i] === ".") return p.slice(i);
  return "";
}

export const isAbs = (p: string) => p.startsWith("/");
