import { base, clean, dir, ext, isAbs } from "../path.js";
import { T } from "../../go/values.js";
import { fn } from "./cast.js";

/** sprig's path and filepath functions (Linux: both slash-separated). */

const S = T.string;
const one = (f: (s: string) => string | boolean, result = S) => fn([S], result, ([s]) => f(s as string));

export const pathFuncs = {
  base: one(base),
  dir: one(dir),
  clean: one(clean),
  ext: one(ext),
  isAbs: one(isAbs, T.bool),
  osBase: one(base),
  osClean: one(clean),
  osDir: one(dir),
  osExt: one(ext),
  osIsAbs: one(isAbs, T.bool),
};
