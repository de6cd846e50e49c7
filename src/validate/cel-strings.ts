import { CelScalar, celMethod, type CelFunc } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import { goReplace } from "../go/strings.js";

/**
 * The CEL strings extension, with `replace` as cel-go has it (Go's strings.Replace): the
 * extension's own rebuilds the whole string at each occurrence (quadratic: one call on a long
 * string could stall validation before the cost budget sees its result), and inserts every
 * replacement at the start for an empty pattern. This one counts the occurrences first, refuses a
 * result over `maxLength` before building it, and builds in one pass.
 */
export function celStrings(maxLength: number): CelFunc[] {
  const { STRING, INT } = CelScalar;
  const replace = function (this: string, old: string, replacement: string, n?: bigint) {
    return goReplace(this, old, replacement, n === undefined ? -1 : Number(n), maxLength);
  };
  return [
    ...strings.filter((f) => f.name !== "replace"),
    celMethod("replace", STRING, [STRING, STRING], STRING, replace),
    celMethod("replace", STRING, [STRING, STRING, INT], STRING, replace),
  ];
}
