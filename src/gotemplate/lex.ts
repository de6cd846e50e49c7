import { quoteGo } from "../go/quote.js";

/**
 * The lexer of Go's text/template (text/template/parse/lex.go): items with their position
 * (a string index), value and line. It runs over the whole input at once; an error item ends it.
 */

export const enum Item {
  Error,
  Bool,
  Char,
  CharConstant,
  Comment,
  Complex,
  Assign,
  Declare,
  EOF,
  Field,
  Identifier,
  LeftDelim,
  LeftParen,
  Number,
  Pipe,
  RawString,
  RightDelim,
  RightParen,
  Space,
  String,
  Text,
  Variable,
  Keyword, // keywords follow
  Block,
  Break,
  Continue,
  Dot,
  Define,
  Else,
  End,
  If,
  Nil,
  Range,
  Template,
  With,
}

export interface Token {
  typ: Item;
  pos: number;
  val: string;
  line: number;
}

const KEYWORDS: Record<string, Item> = {
  ".": Item.Dot,
  block: Item.Block,
  break: Item.Break,
  continue: Item.Continue,
  define: Item.Define,
  else: Item.Else,
  end: Item.End,
  if: Item.If,
  range: Item.Range,
  nil: Item.Nil,
  template: Item.Template,
  with: Item.With,
};

/** How Go prints an item in parse errors. */
export function tokenString(t: Token): string {
  if (t.typ === Item.EOF) return "EOF";
  if (t.typ === Item.Error) return t.val;
  if (t.typ > Item.Keyword) return `<${t.val}>`;
  const runes = [...t.val];
  if (runes.length > 10) return `${quoteGo(runes.slice(0, 10).join(""))}...`;
  return quoteGo(t.val);
}

export interface LexOptions {
  left: string;
  right: string;
  emitComment: boolean;
  breakOK: boolean;
  continueOK: boolean;
}

const LEFT_COMMENT = "/*";
const RIGHT_COMMENT = "*/";

const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\r" || c === "\n";
const ALNUM = /^[_\p{L}\p{Nd}]$/u;
const isAlphaNumeric = (c: string | undefined) => c !== undefined && ALNUM.test(c);
const hasLeftTrimMarker = (s: string, at: number) => s[at] === "-" && isSpace(s[at + 1]);
const hasRightTrimMarker = (s: string, at: number) => isSpace(s[at]) && s[at + 1] === "-";

function codePointAt(s: string, i: number): string | undefined {
  if (i >= s.length) return undefined;
  const cp = s.codePointAt(i)!;
  return String.fromCodePoint(cp);
}

/** Go's `%#U` of a rune. */
export function runeU(r: string): string {
  const cp = r.codePointAt(0)!;
  const hex = cp.toString(16).toUpperCase().padStart(4, "0");
  const printable = cp >= 0x20 && cp !== 0x7f && !(cp >= 0x80 && cp < 0xa0);
  return printable ? `U+${hex} '${r}'` : `U+${hex}`;
}

function countNewlines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = s.indexOf("\n", from); i >= 0 && i < to; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

export function lex(input: string, opts: LexOptions): Token[] {
  const { left, right } = opts;
  const items: Token[] = [];
  let pos = 0;
  let start = 0;
  let line = 1;
  let startLine = 1;
  let parenDepth = 0;

  const emit = (typ: Item) => {
    items.push({ typ, pos: start, val: input.slice(start, pos), line: startLine });
    start = pos;
    startLine = line;
  };
  const ignore = () => {
    line += countNewlines(input, start, pos);
    start = pos;
    startLine = line;
  };
  const error = (msg: string): null => {
    items.push({ typ: Item.Error, pos: start, val: msg, line: startLine });
    return null;
  };
  const next = (): string | undefined => {
    const c = codePointAt(input, pos);
    if (c === undefined) return undefined;
    pos += c.length;
    if (c === "\n") line++;
    return c;
  };
  const backup = (c: string | undefined) => {
    if (c === undefined) return;
    pos -= c.length;
    if (c === "\n") line--;
  };
  const peek = () => codePointAt(input, pos);
  const accept = (valid: string): boolean => {
    const c = next();
    if (c !== undefined && valid.includes(c)) return true;
    backup(c);
    return false;
  };
  const acceptRun = (valid: string) => {
    for (;;) {
      const c = next();
      if (c === undefined || !valid.includes(c)) {
        backup(c);
        return;
      }
    }
  };
  const atRightDelim = (): [boolean, boolean] => {
    if (hasRightTrimMarker(input, pos) && input.startsWith(right, pos + 2)) return [true, true];
    if (input.startsWith(right, pos)) return [true, false];
    return [false, false];
  };
  const atTerminator = (): boolean => {
    const r = peek();
    if (r === undefined || isSpace(r)) return true;
    if (r === "." || r === "," || r === "|" || r === ":" || r === ")" || r === "(") return true;
    return input.startsWith(right, pos);
  };
  const leftTrimLength = (at: number) => {
    let i = at;
    while (isSpace(input[i])) i++;
    return i - at;
  };

  type State = (() => State) | null;

  const lexText = (): State => {
    const x = input.indexOf(left, pos);
    if (x >= 0) {
      pos = x;
      let trim = 0;
      if (hasLeftTrimMarker(input, pos + left.length)) {
        let i = pos;
        while (i > start && isSpace(input[i - 1])) i--;
        trim = pos - i;
      }
      pos -= trim;
      if (pos > start) {
        line += countNewlines(input, start, pos);
        emit(Item.Text);
      }
      pos += trim;
      ignore();
      return lexLeftDelim;
    }
    pos = input.length;
    if (pos > start) {
      line += countNewlines(input, start, pos);
      emit(Item.Text);
    }
    emit(Item.EOF);
    return null;
  };

  const lexLeftDelim = (): State => {
    pos += left.length;
    const trimSpace = hasLeftTrimMarker(input, pos);
    const afterMarker = trimSpace ? 2 : 0;
    if (input.startsWith(LEFT_COMMENT, pos + afterMarker)) {
      pos += afterMarker;
      ignore();
      return lexComment;
    }
    emit(Item.LeftDelim);
    pos += afterMarker;
    ignore();
    parenDepth = 0;
    return lexInsideAction;
  };

  const lexComment = (): State => {
    pos += LEFT_COMMENT.length;
    const i = input.indexOf(RIGHT_COMMENT, pos);
    if (i < 0) return error("unclosed comment");
    pos = i + RIGHT_COMMENT.length;
    const [delim, trimSpace] = atRightDelim();
    if (!delim) return error("comment ends before closing delimiter");
    if (opts.emitComment) emit(Item.Comment);
    if (trimSpace) pos += 2;
    pos += right.length;
    if (trimSpace) pos += leftTrimLength(pos);
    ignore();
    return lexText;
  };

  const lexRightDelim = (): State => {
    const trimSpace = hasRightTrimMarker(input, pos);
    if (trimSpace) {
      pos += 2;
      ignore();
    }
    pos += right.length;
    emit(Item.RightDelim);
    if (trimSpace) {
      pos += leftTrimLength(pos);
      ignore();
    }
    return lexText;
  };

  const lexInsideAction = (): State => {
    const [delim] = atRightDelim();
    if (delim) {
      if (parenDepth === 0) return lexRightDelim;
      return error("unclosed left paren");
    }
    const r = next();
    if (r === undefined) return error("unclosed action");
    if (isSpace(r)) {
      backup(r);
      return lexSpace;
    }
    switch (r) {
      case "=":
        emit(Item.Assign);
        return lexInsideAction;
      case ":":
        if (next() !== "=") return error("expected :=");
        emit(Item.Declare);
        return lexInsideAction;
      case "|":
        emit(Item.Pipe);
        return lexInsideAction;
      case '"':
        return lexQuote;
      case "`":
        return lexRawQuote;
      case "$":
        return lexVariable;
      case "'":
        return lexChar;
      case "(":
        emit(Item.LeftParen);
        parenDepth++;
        return lexInsideAction;
      case ")":
        emit(Item.RightParen);
        parenDepth--;
        if (parenDepth < 0) return error(`unexpected right paren ${runeU(r)}`);
        return lexInsideAction;
    }
    if (r === ".") {
      const c = input[pos];
      if (pos < input.length && (c < "0" || c > "9")) return lexField;
    }
    if (r === "." || r === "+" || r === "-" || (r >= "0" && r <= "9")) {
      backup(r);
      return lexNumber;
    }
    if (isAlphaNumeric(r)) {
      backup(r);
      return lexIdentifier;
    }
    const cp = r.codePointAt(0)!;
    if (cp >= 0x20 && cp < 0x7f) {
      emit(Item.Char);
      return lexInsideAction;
    }
    return error(`unrecognized character in action: ${runeU(r)}`);
  };

  const lexSpace = (): State => {
    let numSpaces = 0;
    while (isSpace(peek())) {
      next();
      numSpaces++;
    }
    if (hasRightTrimMarker(input, pos - 1) && input.startsWith(right, pos - 1 + 2)) {
      backup(input[pos - 1]);
      if (numSpaces === 1) return lexRightDelim;
    }
    emit(Item.Space);
    return lexInsideAction;
  };

  const lexIdentifier = (): State => {
    for (;;) {
      const r = next();
      if (isAlphaNumeric(r)) continue;
      backup(r);
      const word = input.slice(start, pos);
      if (!atTerminator()) return error(`bad character ${runeU(r!)}`);
      const kw = Object.hasOwn(KEYWORDS, word) ? KEYWORDS[word] : undefined;
      if (kw !== undefined && kw > Item.Keyword) {
        if ((kw === Item.Break && !opts.breakOK) || (kw === Item.Continue && !opts.continueOK)) emit(Item.Identifier);
        else emit(kw);
      } else if (word[0] === ".") emit(Item.Field);
      else if (word === "true" || word === "false") emit(Item.Bool);
      else emit(Item.Identifier);
      return lexInsideAction;
    }
  };

  const lexFieldOrVariable = (typ: Item): State => {
    if (atTerminator()) {
      emit(typ === Item.Variable ? Item.Variable : Item.Dot);
      return lexInsideAction;
    }
    let r: string | undefined;
    for (;;) {
      r = next();
      if (!isAlphaNumeric(r)) {
        backup(r);
        break;
      }
    }
    if (!atTerminator()) return error(`bad character ${runeU(r!)}`);
    emit(typ);
    return lexInsideAction;
  };
  const lexField = () => lexFieldOrVariable(Item.Field);
  const lexVariable = (): State => {
    if (atTerminator()) {
      emit(Item.Variable);
      return lexInsideAction;
    }
    return lexFieldOrVariable(Item.Variable);
  };

  const lexChar = (): State => {
    for (;;) {
      const c = next();
      if (c === "\\") {
        const r = next();
        if (r !== undefined && r !== "\n") continue;
        return error("unterminated character constant");
      }
      if (c === undefined || c === "\n") return error("unterminated character constant");
      if (c === "'") break;
    }
    emit(Item.CharConstant);
    return lexInsideAction;
  };

  const scanNumber = (): boolean => {
    accept("+-");
    let digits = "0123456789_";
    if (accept("0")) {
      if (accept("xX")) digits = "0123456789abcdefABCDEF_";
      else if (accept("oO")) digits = "01234567_";
      else if (accept("bB")) digits = "01_";
    }
    acceptRun(digits);
    if (accept(".")) acceptRun(digits);
    if (digits.length === 11 && accept("eE")) {
      accept("+-");
      acceptRun("0123456789_");
    }
    if (digits.length === 23 && accept("pP")) {
      accept("+-");
      acceptRun("0123456789_");
    }
    accept("i");
    if (isAlphaNumeric(peek())) {
      next();
      return false;
    }
    return true;
  };

  const lexNumber = (): State => {
    if (!scanNumber()) return error(`bad number syntax: ${quoteGo(input.slice(start, pos))}`);
    const sign = peek();
    if (sign === "+" || sign === "-") {
      if (!scanNumber() || input[pos - 1] !== "i") return error(`bad number syntax: ${quoteGo(input.slice(start, pos))}`);
      emit(Item.Complex);
    } else emit(Item.Number);
    return lexInsideAction;
  };

  const lexQuote = (): State => {
    for (;;) {
      const c = next();
      if (c === "\\") {
        const r = next();
        if (r !== undefined && r !== "\n") continue;
        return error("unterminated quoted string");
      }
      if (c === undefined || c === "\n") return error("unterminated quoted string");
      if (c === '"') break;
    }
    emit(Item.String);
    return lexInsideAction;
  };

  const lexRawQuote = (): State => {
    const end = input.indexOf("`", pos);
    if (end < 0) {
      pos = input.length;
      return error("unterminated raw quoted string");
    }
    line += countNewlines(input, pos, end);
    pos = end + 1;
    emit(Item.RawString);
    return lexInsideAction;
  };

  for (let state: State = lexText; state; ) state = state();
  return items;
}
