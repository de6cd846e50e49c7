import { Regexp } from "./regexp.js";
import { GoError } from "./values.js";

/** Masterminds/semver v3 (as sprig v3.3.0 pins it): versions, comparison and constraints. */

export interface Version {
  major: number;
  minor: number;
  patch: number;
  pre: string;
  metadata: string;
  original: string;
}

const SEMVER = `v?([0-9]+)(\\.[0-9]+)?(\\.[0-9]+)?(-([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?(\\+([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?`;
const CV = `v?([0-9|x|X|\\*]+)(\\.[0-9|x|X|\\*]+)?(\\.[0-9|x|X|\\*]+)?(-([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?(\\+([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?`;
const OPS = `=||!=|>|<|>=|=>|<=|=<|~|~>|\\^`;

const versionRe = () => Regexp.compile(`^${SEMVER}$`);
const constraintRe = () => Regexp.compile(`^\\s*(${OPS})\\s*(${CV})\\s*$`);
const rangeRe = () => Regexp.compile(`\\s*(${CV})\\s+-\\s+(${CV})\\s*`);
const findConstraintRe = () => Regexp.compile(`(${OPS})\\s*(${CV})`);
const validConstraintRe = () => Regexp.compile(`^(\\s*(${OPS})\\s*(${CV})\\s*)((?:\\s+|,\\s*)(${OPS})\\s*(${CV})\\s*)*$`);

const NUM = /^[0-9]*$/;
const ALLOWED = /^[0-9A-Za-z-]*$/;

function parseUint(s: string): number {
  const v = Number(s);
  if (!Number.isSafeInteger(v)) throw new GoError(`Error parsing version segment: strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`);
  return v;
}

function validatePrerelease(p: string): void {
  for (const part of p.split(".")) {
    if (NUM.test(part)) {
      if (part.length > 1 && part[0] === "0") throw new GoError("Version segment starts with 0");
    } else if (!ALLOWED.test(part)) throw new GoError("Invalid Prerelease string");
  }
}

function validateMetadata(m: string): void {
  for (const part of m.split(".")) if (!ALLOWED.test(part)) throw new GoError("Invalid Metadata string");
}

/** semver.NewVersion */
export function newVersion(v: string): Version {
  const m = versionRe().findStringSubmatch(v);
  if (!m) throw new GoError("Invalid Semantic Version");
  const sv: Version = {
    major: parseUint(m[1]),
    minor: m[2] ? parseUint(m[2].slice(1)) : 0,
    patch: m[3] ? parseUint(m[3].slice(1)) : 0,
    pre: m[5],
    metadata: m[8],
    original: v,
  };
  if (sv.pre) validatePrerelease(sv.pre);
  if (sv.metadata) validateMetadata(sv.metadata);
  return sv;
}

export function versionString(v: Version): string {
  let s = `${v.major}.${v.minor}.${v.patch}`;
  if (v.pre) s += "-" + v.pre;
  if (v.metadata) s += "+" + v.metadata;
  return s;
}

const cmp = (a: number, b: number) => (a < b ? -1 : a > b ? 1 : 0);

function comparePrePart(s: string, o: string): number {
  if (s === o) return 0;
  if (s === "") return o !== "" ? -1 : 1;
  if (o === "") return s !== "" ? 1 : -1;
  const oNum = /^\d+$/.test(o);
  const sNum = /^\d+$/.test(s);
  if (!oNum && !sNum) return s > o ? 1 : -1;
  if (!oNum) return -1;
  if (!sNum) return 1;
  return Number(s) > Number(o) ? 1 : -1;
}

function comparePrerelease(v: string, o: string): number {
  const sp = v.split(".");
  const op = o.split(".");
  const l = Math.max(sp.length, op.length);
  for (let i = 0; i < l; i++) {
    const d = comparePrePart(sp[i] ?? "", op[i] ?? "");
    if (d !== 0) return d;
  }
  return 0;
}

export function compareVersions(v: Version, o: Version): number {
  const d = cmp(v.major, o.major) || cmp(v.minor, o.minor) || cmp(v.patch, o.patch);
  if (d !== 0) return d;
  if (v.pre === "" && o.pre === "") return 0;
  if (v.pre === "") return 1;
  if (o.pre === "") return -1;
  return comparePrerelease(v.pre, o.pre);
}

interface Constraint {
  con: Version;
  orig: string;
  op: string;
  minorDirty: boolean;
  patchDirty: boolean;
  dirty: boolean;
}

const isX = (x: string) => x === "x" || x === "*" || x === "X";

function parseConstraint(c: string): Constraint {
  if (c.length === 0) {
    return { con: newVersion("0.0.0"), orig: c, op: "", minorDirty: false, patchDirty: false, dirty: true };
  }
  const m = constraintRe().findStringSubmatch(c);
  if (!m) throw new GoError(`improper constraint: ${c}`);
  let ver = m[2];
  let minorDirty = false;
  let patchDirty = false;
  let dirty = false;
  if (isX(m[3]) || m[3] === "") {
    ver = `0.0.0${m[6]}`;
    dirty = true;
  } else if (isX(m[4].replace(/^\./, "")) || m[4] === "") {
    minorDirty = true;
    dirty = true;
    ver = `${m[3]}.0.0${m[6]}`;
  } else if (isX(m[5].replace(/^\./, "")) || m[5] === "") {
    dirty = true;
    patchDirty = true;
    ver = `${m[3]}${m[4]}.0${m[6]}`;
  }
  let con: Version;
  try {
    con = newVersion(ver);
  } catch {
    throw new GoError("constraint Parser Error");
  }
  return { con, orig: m[2], op: m[1], minorDirty, patchDirty, dirty };
}

function rewriteRange(c: string): string {
  const re = rangeRe();
  let out = c;
  let m;
  let rest = c;
  while ((m = re.findStringSubmatch(rest))) {
    out = out.replace(m[0], `>= ${m[1]}, <= ${m[11]} `);
    rest = rest.slice(rest.indexOf(m[0]) + m[0].length);
    if (m[0] === "") break;
  }
  return out;
}

/** semver.NewConstraint: the OR groups of AND-ed constraints. */
export function newConstraint(c: string): Constraint[][] {
  const rewritten = rewriteRange(c);
  return rewritten.split("||").map((v) => {
    if (!validConstraintRe().matchString(v)) throw new GoError(`improper constraint: ${v}`);
    const cs = findConstraintRe().findAllString(v, -1) ?? [v];
    return cs.map(parseConstraint);
  });
}

const prereleaseBlocked = (v: Version, c: Constraint) => v.pre !== "" && c.con.pre === "";

function check(v: Version, c: Constraint): boolean {
  const lt = compareVersions(v, c.con) < 0;
  switch (c.op) {
    case "":
    case "=":
      if (prereleaseBlocked(v, c)) return false;
      if (c.dirty) return tilde(v, c);
      return compareVersions(v, c.con) === 0;
    case "!=":
      if (c.dirty) {
        if (prereleaseBlocked(v, c)) return false;
        if (c.con.major !== v.major) return true;
        if (c.con.minor !== v.minor && !c.minorDirty) return true;
        if (c.minorDirty) return false;
        if (c.con.patch !== v.patch && !c.patchDirty) return true;
        if (c.patchDirty) {
          if (v.pre !== "" || c.con.pre !== "") return comparePrerelease(v.pre, c.con.pre) !== 0;
          return false;
        }
      }
      return compareVersions(v, c.con) !== 0;
    case ">":
      if (prereleaseBlocked(v, c)) return false;
      if (!c.dirty) return compareVersions(v, c.con) === 1;
      if (v.major > c.con.major) return true;
      if (v.major < c.con.major) return false;
      if (c.minorDirty) return false;
      if (c.patchDirty) return v.minor > c.con.minor;
      return compareVersions(v, c.con) === 1;
    case "<":
      return !prereleaseBlocked(v, c) && lt;
    case ">=":
    case "=>":
      return !prereleaseBlocked(v, c) && !lt;
    case "<=":
    case "=<":
      if (prereleaseBlocked(v, c)) return false;
      if (!c.dirty) return compareVersions(v, c.con) <= 0;
      if (v.major > c.con.major) return false;
      if (v.major === c.con.major && v.minor > c.con.minor && !c.minorDirty) return false;
      return true;
    case "~":
    case "~>":
      return !prereleaseBlocked(v, c) && tilde(v, c);
    case "^": {
      if (prereleaseBlocked(v, c) || lt) return false;
      if (c.con.major > 0 || c.minorDirty) return v.major === c.con.major;
      if (c.con.major === 0 && v.major > 0) return false;
      if (c.con.minor > 0 || c.patchDirty) return v.minor === c.con.minor;
      if (c.con.minor === 0 && v.minor > 0) return false;
      return c.con.patch === v.patch;
    }
  }
  return false;
}

function tilde(v: Version, c: Constraint): boolean {
  if (prereleaseBlocked(v, c)) return false;
  if (compareVersions(v, c.con) < 0) return false;
  if (c.con.major === 0 && c.con.minor === 0 && c.con.patch === 0 && !c.minorDirty && !c.patchDirty) return true;
  if (v.major !== c.con.major) return false;
  if (v.minor !== c.con.minor && !c.minorDirty) return false;
  return true;
}

/** Constraints.Check */
export function checkConstraint(cs: Constraint[][], v: Version): boolean {
  return cs.some((and) => and.every((c) => check(v, c)));
}
