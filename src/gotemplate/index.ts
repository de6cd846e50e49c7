/**
 * Go's text/template and the sprig function library, as a language engine: no Crossplane here.
 * See docs/gotemplate.md.
 */
export { Template, type FuncMap } from "./template.js";
export { ParseError } from "./parse.js";
export { ExecError, isTrue } from "./exec.js";
export { callContext, seededRandom, DEFAULT_NOW, DEFAULT_SEED, type ContextOptions } from "./context.js";
export { sprint, sprintf, sprintln, formatValue } from "../go/fmt.js";
export * from "../go/values.js";
