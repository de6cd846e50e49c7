import type { FuncMap } from "../template.js";
import { dateFuncs } from "./date.js";
import { defaultFuncs } from "./defaults.js";
import { dictFuncs } from "./dicts.js";
import { encodingFuncs } from "./encoding.js";
import { listFuncs } from "./lists.js";
import { numericFuncs } from "./numeric.js";
import { pathFuncs } from "./paths.js";
import { randomFuncs } from "./random.js";
import { regexFuncs } from "./regex.js";
import { semverFuncs } from "./semver.js";
import { stringFuncs } from "./strings.js";
import { urlFuncs } from "./url.js";
import { networkFuncs } from "./network.js";
import { cryptoFuncs } from "./crypto.js";

/**
 * sprig v3's function map (sprig.FuncMap()), as function-go-templating registers it: without
 * env and expandenv, which it deletes (they would leak the process environment).
 */
export function sprigFuncs(): FuncMap {
  return {
    ...dateFuncs,
    ...stringFuncs,
    ...numericFuncs,
    ...listFuncs,
    ...dictFuncs,
    ...defaultFuncs,
    ...pathFuncs,
    ...encodingFuncs,
    ...regexFuncs,
    ...semverFuncs,
    ...urlFuncs,
    ...randomFuncs,
    ...networkFuncs,
    ...cryptoFuncs,
  };
}
