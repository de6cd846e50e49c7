// validate/: schemas (built-in, CRDs, XRDs, packages, locations) and the semantic rules; findings with file and line.
import { CelScalar, celMethod, isCelList, listType, type CelFunc, type CelList, type CelValue } from "@bufbuild/cel";
import { compileRe2 } from "../go/re2.js";

/**
 * The parts of Kubernetes' CEL libraries that CRD rules use most, with the API server's semantics:
 * lists (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`) and regex (`find`, `findAll`,
 * on RE2). Kubernetes' quantity, URL, IP and CIDR libraries are not here: rules using them are
 * reported as not evaluated.
 */

const { DYN, INT, STRING } = CelScalar;
const LIST = listType(DYN);

type Scalar = bigint | number | string | boolean;

function items(list: CelList): CelValue[] {
  return [...list];
}

function compare(a: CelValue, b: CelValue): number {
  if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
  if ((typeof a === "number" || typeof a === "bigint") && (typeof b === "number" || typeof b === "bigint")) return Number(a) - Number(b);
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  throw new Error(`no such overload: cannot compare ${typeof a} and ${typeof b}`);
}

function equal(a: CelValue, b: CelValue): boolean {
  if (isCelList(a) && isCelList(b)) return a.size === b.size && items(a).every((v, i) => equal(v, b.get(i)!));
  if ((typeof a === "number" || typeof a === "bigint") && (typeof b === "number" || typeof b === "bigint")) return Number(a) === Number(b);
  return a === b;
}

function extreme(list: CelList, sign: 1 | -1): CelValue {
  const all = items(list);
  if (all.length === 0) throw new Error(`${sign > 0 ? "max" : "min"} called on empty list`);
  return all.reduce((best, v) => (compare(v, best) * sign > 0 ? v : best));
}

function sum(list: CelList): Scalar {
  const all = items(list);
  if (all.length === 0) return 0n;
  if (all.every((v) => typeof v === "bigint")) return (all as bigint[]).reduce((a, b) => a + b, 0n);
  if (all.every((v) => typeof v === "number" || typeof v === "bigint")) return all.reduce<number>((a, b) => a + Number(b), 0);
  throw new Error("no such overload: sum of a list that is not all numbers");
}

function findAll(text: string, pattern: string, limit?: bigint): string[] {
  const matcher = compileRe2(pattern).matcher(text);
  const out: string[] = [];
  const max = limit === undefined || limit < 0n ? Infinity : Number(limit);
  while (out.length < max && matcher.find()) out.push(matcher.group() ?? "");
  return out;
}

export const kubernetesCel: CelFunc[] = [
  celMethod("isSorted", LIST, [], CelScalar.BOOL, function (this: CelList) {
    const all = items(this);
    return all.every((v, i) => i === 0 || compare(all[i - 1]!, v) <= 0);
  }),
  celMethod("sum", LIST, [], DYN, function (this: CelList) {
    return sum(this);
  }),
  celMethod("min", LIST, [], DYN, function (this: CelList) {
    return extreme(this, -1) as Scalar;
  }),
  celMethod("max", LIST, [], DYN, function (this: CelList) {
    return extreme(this, 1) as Scalar;
  }),
  celMethod("indexOf", LIST, [DYN], INT, function (this: CelList, v: CelValue) {
    return BigInt(items(this).findIndex((x) => equal(x, v)));
  }),
  celMethod("lastIndexOf", LIST, [DYN], INT, function (this: CelList, v: CelValue) {
    const all = items(this);
    for (let i = all.length - 1; i >= 0; i--) if (equal(all[i]!, v)) return BigInt(i);
    return -1n;
  }),
  celMethod("find", STRING, [STRING], STRING, function (this: string, pattern: string) {
    return findAll(this, pattern, 1n)[0] ?? "";
  }),
  celMethod("findAll", STRING, [STRING], listType(STRING), function (this: string, pattern: string) {
    return findAll(this, pattern);
  }),
  celMethod("findAll", STRING, [STRING, INT], listType(STRING), function (this: string, pattern: string, limit: bigint) {
    return findAll(this, pattern, limit);
  }),
];
