import { RE2JS } from "re2js";
import type { JsonObject } from "../../core/json.js";
import { isObject } from "../yaml.js";

/**
 * kyaml's field paths on plain JSON values, as kustomize replacements use them: the
 * SmarterPathSplitter (`a.b.[name=x.y].c`), PathGetter (`Lookup`: exact `[k=v]` matches, numeric
 * and `-` indexes) and PathMatcher (`[k=v]` values as unanchored RE2 patterns, `*`, creation).
 */

export class PathError extends Error {}

/** kyaml's PathSplitter: a leading delimiter is allowed; `\` before the delimiter escapes it. */
export function pathSplitter(path: string, delimiter: string): string[] {
  let parts = path.split(delimiter);
  if (parts.length > 1 && parts[0] === "") parts = parts.slice(1);
  const out: string[] = [parts[0]!];
  for (const p of parts.slice(1)) {
    const last = out.length - 1;
    if (out[last]!.endsWith("\\")) out[last] = `${out[last]!.slice(0, -1)}${delimiter}${p}`;
    else out.push(p);
  }
  return out;
}

/** kyaml's SmarterPathSplitter: a bracketed part keeps its delimiters (`[name=a.b]`). */
export function smarterPathSplitter(path: string, delimiter: string): string[] {
  const split = pathSplitter(path, delimiter);
  const out: string[] = [];
  for (let i = 0; i < split.length; i++) {
    const elem = split[i]!;
    if (elem.startsWith("[") && !elem.endsWith("]")) {
      const bracketed = [elem];
      while (i < split.length - 1) {
        i++;
        bracketed.push(split[i]!);
        if (split[i]!.endsWith("]")) break;
      }
      const joined = bracketed.join(delimiter);
      out.push(joined.includes("=") ? joined : joined.replace(/^\[+|\]+$/g, ""));
    } else out.push(elem);
  }
  return out;
}

const isListIndex = (p: string) => p.startsWith("[") && p.endsWith("]");
const isIdxNumber = (p: string) => /^\+?\d+$/.test(p);

function splitIndexNameValue(p: string): [string, string] {
  const elem = p.replace(/\]$/, "").replace(/^\[/, "");
  const eq = elem.indexOf("=");
  if (eq < 0) throw new PathError("list path element must contain fieldName=fieldValue for element to match");
  return [elem.slice(0, eq), elem.slice(eq + 1)];
}

/** A scalar's text as kyaml compares it. */
export function scalarText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "object") return "";
  return String(v);
}

/** PathGetter without creation: the value at the path, or undefined when a part is missing. */
export function lookup(root: unknown, path: string[]): unknown {
  let match: unknown = root;
  for (const raw of path.map((p) => p.trim()).filter(Boolean)) {
    if (match === undefined || match === null) return undefined;
    if (/^-?\d+$/.test(raw)) {
      const idx = Number(raw);
      if (idx < 0) throw new PathError(`array index ${idx} cannot be negative`);
      if (!Array.isArray(match)) throw new PathError(`wrong node kind: expected SequenceNode`);
      match = match[idx];
    } else if (raw === "-") {
      if (!Array.isArray(match)) throw new PathError(`wrong node kind: expected SequenceNode`);
      match = match[match.length - 1];
    } else if (raw === "*") {
      throw new PathError("wildcard is not supported in PathGetter");
    } else if (isListIndex(raw)) {
      const [name, value] = splitIndexNameValue(raw);
      if (!Array.isArray(match)) throw new PathError(`wrong node kind: expected SequenceNode`);
      match =
        name === ""
          ? match.find((e) => !isObject(e) && !Array.isArray(e) && scalarText(e) === value)
          : match.find((e) => isObject(e) && scalarText(e[name]) === value && !isObject(e[name]));
    } else {
      if (!isObject(match)) return undefined;
      match = match[raw];
    }
  }
  return match;
}

/** A place a value lives: its container and key, so that it can be replaced in place. */
export interface Slot {
  container: JsonObject | unknown[];
  key: string | number;
  /** Made by the matcher (create): the value is a placeholder. */
  created?: boolean;
}

export function slotValue(s: Slot): unknown {
  return (s.container as Record<string | number, unknown>)[s.key];
}

export function setSlot(s: Slot, v: unknown): void {
  (s.container as Record<string | number, unknown>)[s.key] = v;
}

type CreateKind = "scalar" | "map" | "seq" | undefined;

function partKind(next: string | undefined, create: CreateKind): CreateKind {
  if (next === undefined || next === "") return create;
  if (isListIndex(next) || isIdxNumber(next)) return "seq";
  return "map";
}

function emptyOf(kind: CreateKind): unknown {
  return kind === "map" ? {} : kind === "seq" ? [] : null;
}

/**
 * PathMatcher: every place the path matches, in order. `create` makes missing fields (and a
 * list element `[k=v]` that matches nothing, or an index one past the end) of the kind the next
 * part needs, the last one of the given kind.
 */
export function pathMatch(parent: Slot, path: string[], create: CreateKind): Slot[] {
  if (path.length === 0) return [parent];
  const node = slotValue(parent);
  const part = path[0]!;
  if (isIdxNumber(part)) {
    const idx = Number(part);
    if (!Array.isArray(node)) throw new PathError("wrong node kind: expected SequenceNode");
    if (node.length === idx && create) node.push(emptyOf(partKind(path[1], create)));
    if (node.length < idx + 1) throw new PathError(`index ${idx} specified but only ${node.length} elements found`);
    return pathMatch({ container: node, key: idx, created: parent.created }, path.slice(1), create);
  }
  if (isListIndex(part)) {
    const [field, pattern] = splitIndexNameValue(part);
    if (!Array.isArray(node)) return [];
    const re = compile(pattern);
    const found = (): Slot[] => {
      const out: Slot[] = [];
      node.forEach((element, i) => {
        if (field === "") {
          if (isObject(element) || Array.isArray(element)) return;
          if (re.matcher(scalarText(element).trim()).find()) out.push({ container: node, key: i });
          return;
        }
        if (!isObject(element) || element[field] === undefined || element[field] === null) return;
        const value = element[field];
        if (isObject(value) || Array.isArray(value)) return;
        if (re.matcher(scalarText(value).trim()).find()) out.push(...pathMatch({ container: node, key: i }, path.slice(1), create));
      });
      return out;
    };
    const matched = found();
    if (matched.length || !create) return matched;
    node.push(field === "" ? pattern : { [field]: pattern });
    return found();
  }
  if (part === "*") {
    if (!Array.isArray(node)) throw new PathError("wrong node kind: expected SequenceNode");
    return node.flatMap((_, i) => pathMatch({ container: node, key: i }, path.slice(1), create));
  }
  if (!isObject(node)) return [];
  if (node[part] === undefined) {
    if (!create) return [];
    node[part] = emptyOf(partKind(path[1], create));
    return pathMatch({ container: node, key: part, created: true }, path.slice(1), create);
  }
  return pathMatch({ container: node, key: part }, path.slice(1), create);
}

function compile(pattern: string): RE2JS {
  try {
    return RE2JS.compile(pattern);
  } catch (err) {
    throw new PathError(`error parsing regexp: ${(err as Error).message}`);
  }
}
