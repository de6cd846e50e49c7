import { escapeCharacter, isBreak, isPrintable } from "../go/libyaml.js";

const BEST_WIDTH = 80;
const BEST_INDENT = 2;
const SPACES = " ".repeat(128);

/**
 * The output side of libyaml's emitter as go-yaml v2 runs it (emitterc.go): the column and the
 * whitespace/indention flags decide where indentation, separating spaces and line folds go, so
 * they are kept exactly as the C code keeps them. Scalar text is copied in slices; every
 * character written raw is one UTF-16 unit (characters beyond the BMP are always escaped), so
 * the column counts units.
 */
export class Writer {
  private out = "";
  private column = 0;
  private whitespace = true;
  /** True while only indentation (and "- " or "? " indicators) is on the current line. */
  indention = true;

  text(): string {
    return this.out;
  }

  /** yaml_emitter_write_indent: a new line unless the line holds only indentation, then spaces up to indent. */
  indent(indent: number): void {
    const target = Math.max(indent, 0);
    if (!this.indention || this.column > target || (this.column === target && !this.whitespace)) this.lineBreak();
    if (this.column < target) this.spaces(target - this.column);
    this.whitespace = true;
    this.indention = true;
  }

  /** yaml_emitter_write_indicator. */
  indicator(text: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.spaces(1);
    this.out += text;
    this.column += text.length;
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  /** A plain scalar that has no spaces: a number, a bool or null. */
  word(text: string): void {
    if (!this.whitespace) this.spaces(1);
    this.out += text;
    this.column += text.length;
    this.whitespace = false;
    this.indention = false;
  }

  /**
   * yaml_emitter_write_plain_scalar. A plain scalar has no line breaks, no leading or trailing
   * space and no special characters; a space folds into a line break once the line is longer
   * than the best width, unless it follows or precedes another space.
   */
  plain(value: string, allowBreaks: boolean, indent: number): void {
    if (!this.whitespace) this.spaces(1);
    let column = this.column;
    let start = 0;
    let spaces = false;
    for (let i = 0; i < value.length; i++) {
      if (value.charCodeAt(i) !== 0x20) {
        column++;
        spaces = false;
        continue;
      }
      if (allowBreaks && !spaces && column > BEST_WIDTH && value.charCodeAt(i + 1) !== 0x20) {
        this.copy(value, start, i, column);
        this.indention = false;
        this.indent(indent);
        column = this.column;
        start = i + 1;
      } else {
        column++;
      }
      spaces = true;
    }
    this.copy(value, start, value.length, column);
    this.whitespace = false;
    this.indention = false;
  }

  /** yaml_emitter_write_single_quoted_scalar: quotes doubled; folds like plain, never at the ends. */
  singleQuoted(value: string, allowBreaks: boolean, indent: number): void {
    this.indicator("'", true, false, false);
    const n = value.length;
    let column = this.column;
    let start = 0;
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c === 0x20) {
        if (allowBreaks && !spaces && column > BEST_WIDTH && i > 0 && i < n - 1 && value.charCodeAt(i + 1) !== 0x20) {
          this.copy(value, start, i, column);
          this.indent(indent);
          column = this.column;
          start = i + 1;
        } else {
          column++;
        }
        spaces = true;
      } else if (isBreak(c)) {
        this.copy(value, start, i, column);
        if (!breaks && c === 0x0a) this.lineBreak();
        this.writeBreak(value, i);
        column = 0;
        start = i + 1;
        breaks = true;
      } else {
        if (breaks) {
          this.indent(indent);
          column = this.column;
        }
        if (c === 0x27) {
          this.copy(value, start, i, column);
          this.out += "'";
          column++;
          start = i;
        }
        column++;
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.copy(value, start, n, column);
    this.indicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  /**
   * yaml_emitter_write_double_quoted_scalar: escapes for what is not printable, breaks, '"' and
   * '\\' (and for every character when the value starts with a BOM); a folded space that is
   * followed by another space is kept as an escaped "\ " at the start of the next line.
   */
  doubleQuoted(value: string, allowBreaks: boolean, indent: number): void {
    this.indicator('"', true, false, false);
    const n = value.length;
    const escapeAll = value.charCodeAt(0) === 0xfeff;
    let column = this.column;
    let start = 0;
    let spaces = false;
    for (let i = 0; i < n; ) {
      const c = value.codePointAt(i)!;
      const width = c > 0xffff ? 2 : 1;
      if (escapeAll || !isPrintable(c) || isBreak(c) || c === 0x22 || c === 0x5c) {
        this.copy(value, start, i, column);
        const escaped = escapeCharacter(c);
        this.out += escaped;
        column += escaped.length;
        start = i + width;
        spaces = false;
      } else if (c === 0x20) {
        if (allowBreaks && !spaces && column > BEST_WIDTH && i > 0 && i < n - 1) {
          this.copy(value, start, i, column);
          this.indent(indent);
          column = this.column;
          if (value.charCodeAt(i + 1) === 0x20) {
            this.out += "\\";
            column++;
          }
          start = i + 1;
        } else {
          column++;
        }
        spaces = true;
      } else {
        column++;
        spaces = false;
      }
      i += width;
    }
    this.copy(value, start, n, column);
    this.indicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  /**
   * yaml_emitter_write_literal_scalar: "|", an indentation indicator when the text starts with a
   * space or a break, the chomping indicator, then the lines; empty lines get no indentation.
   */
  literal(value: string, indent: number): void {
    this.indicator("|", true, false, false);
    const first = value.charCodeAt(0);
    if (first === 0x20 || isBreak(first)) this.indicator(String(BEST_INDENT), false, false, false);
    const chomp = chompingIndicator(value);
    if (chomp !== "") this.indicator(chomp, false, false, false);
    this.lineBreak();
    this.indention = true;
    this.whitespace = true;
    let column = 0;
    let start = 0;
    let breaks = true;
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i);
      if (isBreak(c)) {
        this.copy(value, start, i, column);
        this.writeBreak(value, i);
        column = 0;
        start = i + 1;
        breaks = true;
      } else {
        if (breaks) {
          this.indent(indent);
          column = this.column;
          start = i;
        }
        column++;
        this.indention = false;
        breaks = false;
      }
    }
    this.copy(value, start, value.length, column);
  }

  private copy(value: string, start: number, end: number, column: number): void {
    if (end > start) this.out += value.slice(start, end);
    this.column = column;
  }

  /** write_break: "\n" is a line break; other break characters are copied, and end the line too. */
  private writeBreak(value: string, i: number): void {
    this.out += value[i];
    this.column = 0;
    this.indention = true;
  }

  private lineBreak(): void {
    this.out += "\n";
    this.column = 0;
  }

  private spaces(count: number): void {
    this.out += count <= SPACES.length ? SPACES.slice(0, count) : " ".repeat(count);
    this.column += count;
  }
}

/** '-' strips the final line break, '+' keeps trailing empty lines, "" keeps a single final break. */
function chompingIndicator(value: string): string {
  const n = value.length;
  if (!isBreak(value.charCodeAt(n - 1))) return "-";
  if (n === 1 || isBreak(value.charCodeAt(n - 2))) return "+";
  return "";
}
