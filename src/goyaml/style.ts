import { isBreak, isPrintable } from "../go/libyaml.js";
import { plainReadsAsString } from "./resolve.js";

/** The scalar styles yaml.v2 can choose for a string (it never folds with '>'). */
export type Style = "plain" | "single" | "double" | "literal";

/** What libyaml's yaml_emitter_analyze_scalar finds out about a scalar (block context only). */
export interface Analysis {
  multiline: boolean;
  plainAllowed: boolean;
  singleAllowed: boolean;
  blockAllowed: boolean;
}

const EMPTY: Analysis = { multiline: false, plainAllowed: true, singleAllowed: true, blockAllowed: false };

/**
 * The style yaml.v2 gives a string: encode.go stringv asks for a literal block when the string has
 * a "\n", plain when it reads back as a string, double quotes otherwise; the emitter
 * (yaml_emitter_select_scalar_style) then falls back from plain to single quotes and from
 * single quotes or a literal block to double quotes when the text does not allow them. Keys take
 * the same styles: a simple key is never multiline and the empty string is never plain, so the
 * emitter's rules for those cases have nothing to change.
 */
export function selectStyle(s: string, a: Analysis): Style {
  let style: Style = s.includes("\n") ? "literal" : plainReadsAsString(s) ? "plain" : "double";
  if (style === "plain" && !a.plainAllowed) style = "single";
  if (style === "single" && !a.singleAllowed) style = "double";
  if (style === "literal" && !a.blockAllowed) style = "double";
  return style;
}

export function analyzeScalar(s: string): Analysis {
  const n = s.length;
  if (n === 0) return EMPTY;
  let indicators = s.startsWith("---") || s.startsWith("...");
  let lineBreaks = false;
  let special = false;
  let spaceBreak = false;
  let breakSpace = false;
  let previousSpace = false;
  let previousBreak = false;
  let precededByWhitespace = true;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    const next = i + 1 < n ? s.charCodeAt(i + 1) : -1;
    const followedByWhitespace = next === -1 || next === 0x20 || next === 0x09;
    if (i === 0 ? isLeadingIndicator(c, followedByWhitespace) : isInnerIndicator(c, followedByWhitespace, precededByWhitespace)) {
      indicators = true;
    }
    if (!isPrintable(c)) special = true;
    if (c === 0x20) {
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = c === 0x20 || c === 0x09 || c === 0 || isBreak(c);
  }
  const first = s.charCodeAt(0);
  const last = s.charCodeAt(n - 1);
  const edgeSpace = first === 0x20 || last === 0x20;
  const edgeBreak = isBreak(first) || isBreak(last);
  return {
    multiline: lineBreaks,
    plainAllowed: !(edgeSpace || edgeBreak || breakSpace || spaceBreak || special || lineBreaks || indicators),
    singleAllowed: !(breakSpace || spaceBreak || special),
    blockAllowed: !(last === 0x20 || spaceBreak || special),
  };
}

/** A first character that starts YAML syntax: # , [ ] { } & * ! | > ' " % @ ` always; ? : - before a blank. */
function isLeadingIndicator(c: number, followedByWhitespace: boolean): boolean {
  switch (c) {
    case 0x23:
    case 0x2c:
    case 0x5b:
    case 0x5d:
    case 0x7b:
    case 0x7d:
    case 0x26:
    case 0x2a:
    case 0x21:
    case 0x7c:
    case 0x3e:
    case 0x27:
    case 0x22:
    case 0x25:
    case 0x40:
    case 0x60:
      return true;
    case 0x3f:
    case 0x3a:
    case 0x2d:
      return followedByWhitespace;
    default:
      return false;
  }
}

/** ": " (or ':' at the end) and " #" inside a scalar. */
function isInnerIndicator(c: number, followedByWhitespace: boolean, precededByWhitespace: boolean): boolean {
  return (c === 0x3a && followedByWhitespace) || (c === 0x23 && precededByWhitespace);
}
