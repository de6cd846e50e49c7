import { formatFloat, type FloatFormat } from "./float.js";
import { canBackquote, isPrint, quoteGo, quoteRune } from "./quote.js";
import { FLOAT_KINDS, GoFunc, GoNum, GoStruct, INT_KINDS, isNilCollection, typeOf, UINT_KINDS, type Value } from "./values.js";
import { compareGoStrings } from "./sort.js";

/** Go's fmt: Sprint, Sprintln and Sprintf over template values, with Go's verbs and error forms. */

interface Flags {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  plusV: boolean;
  sharpV: boolean;
  wid: number;
  widPresent: boolean;
  prec: number;
  precPresent: boolean;
}

const noFlags = (): Flags => ({
  plus: false,
  minus: false,
  sharp: false,
  space: false,
  zero: false,
  plusV: false,
  sharpV: false,
  wid: 0,
  widPresent: false,
  prec: 0,
  precPresent: false,
});

const runeCount = (s: string) => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c >= 0xdc00) n++;
  }
  return n;
};

class Printer {
  buf = "";
  f: Flags = noFlags();
  private erroring = false;

  private padding(n: number): string {
    if (n <= 0) return "";
    return (this.f.zero ? "0" : " ").repeat(n);
  }

  pad(s: string): void {
    const f = this.f;
    if (!f.widPresent || f.wid === 0) {
      this.buf += s;
      return;
    }
    const width = f.wid - runeCount(s);
    if (!f.minus) this.buf += this.padding(width) + s;
    else this.buf += s + this.padding(width);
  }

  private withoutZero(fn: () => void): void {
    const old = this.f.zero;
    this.f.zero = false;
    fn();
    this.f.zero = old;
  }

  private truncate(s: string): string {
    if (!this.f.precPresent) return s;
    let n = this.f.prec;
    let i = 0;
    for (const ch of s) {
      if (--n < 0) return s.slice(0, i);
      i += ch.length;
    }
    return s;
  }

  fmtS(s: string): void {
    this.pad(this.truncate(s));
  }

  private fmtQ(s: string): void {
    s = this.truncate(s);
    if (this.f.sharp && canBackquote(s)) this.pad("`" + s + "`");
    else this.pad(quoteGo(s, this.f.plus));
  }

  private fmtSbx(bytes: Uint8Array, upper: boolean): void {
    const f = this.f;
    const digits = upper ? "0123456789ABCDEFX" : "0123456789abcdefx";
    let length = bytes.length;
    if (f.precPresent && f.prec < length) length = f.prec;
    let width = 2 * length;
    if (width > 0) {
      if (f.space) {
        if (f.sharp) width *= 2;
        width += length - 1;
      } else if (f.sharp) width += 2;
    } else {
      if (f.widPresent) this.buf += this.padding(f.wid);
      return;
    }
    if (f.widPresent && f.wid > width && !f.minus) this.buf += this.padding(f.wid - width);
    let out = f.sharp ? "0" + digits[16] : "";
    for (let i = 0; i < length; i++) {
      if (f.space && i > 0) {
        out += " ";
        if (f.sharp) out += "0" + digits[16];
      }
      const c = bytes[i];
      out += digits[c >> 4] + digits[c & 15];
    }
    this.buf += out;
    if (f.widPresent && f.wid > width && f.minus) this.buf += this.padding(f.wid - width);
  }

  private fmtInteger(value: number | bigint, base: number, signed: boolean, verb: string, upper: boolean): void {
    const f = this.f;
    let u = typeof value === "bigint" ? value : BigInt(Math.trunc(value));
    const negative = signed && u < 0n;
    if (negative) u = -u;
    let prec = 0;
    if (f.precPresent) {
      prec = f.prec;
      if (prec === 0 && u === 0n) {
        this.withoutZero(() => (this.buf += this.padding(f.wid)));
        return;
      }
    } else if (f.zero && f.widPresent) {
      prec = f.wid;
      if (negative || f.plus || f.space) prec--;
    }
    let s = u.toString(base);
    if (upper) s = s.toUpperCase();
    if (s.length < prec) s = "0".repeat(prec - s.length) + s;
    if (f.sharp) {
      if (base === 2) s = "0b" + s;
      else if (base === 8 && s[0] !== "0") s = "0" + s;
      else if (base === 16) s = (upper ? "0X" : "0x") + s;
    }
    if (verb === "O") s = "0o" + s;
    if (negative) s = "-" + s;
    else if (f.plus) s = "+" + s;
    else if (f.space) s = " " + s;
    this.withoutZero(() => this.pad(s));
  }

  private fmtUnicode(u: number): void {
    const f = this.f;
    let prec = 4;
    if (f.precPresent && f.prec > 4) prec = f.prec;
    let s = "U+" + u.toString(16).toUpperCase().padStart(prec, "0");
    if (f.sharp && u <= 0x10ffff && isPrint(String.fromCodePoint(u))) s += ` '${String.fromCodePoint(u)}'`;
    this.withoutZero(() => this.pad(s));
  }

  private fmtFloatValue(v: number, size: 32 | 64, verb: FloatFormat, defPrec: number): void {
    const f = this.f;
    const prec = f.precPresent ? f.prec : defPrec;
    let num = formatFloat(v, verb, prec, size);
    if (num[0] !== "-" && num[0] !== "+") num = "+" + num;
    if (f.space && num[0] === "+" && !f.plus) num = " " + num.slice(1);
    if (num[1] === "I" || num[1] === "N") {
      if (num[1] === "N" && !f.space && !f.plus) num = num.slice(1);
      this.withoutZero(() => this.pad(num));
      return;
    }
    if (f.sharp && verb !== "b") {
      let digits = 0;
      if (verb === "g" || verb === "G" || verb === "x") digits = prec === -1 ? 6 : prec;
      let tail = "";
      let body = num;
      const ePos = body.search(verb === "x" || verb === "X" ? /[pP]/ : /[eEpP]/);
      if (ePos >= 0) {
        tail = body.slice(ePos);
        body = body.slice(0, ePos);
      }
      let hasPoint = false;
      let sawNonzero = false;
      for (let i = 1; i < body.length; i++) {
        const c = body[i];
        if (c === ".") hasPoint = true;
        else {
          if (c !== "0") sawNonzero = true;
          if (sawNonzero) digits--;
        }
      }
      if (!hasPoint) {
        if (body.length === 2 && body[1] === "0") digits--;
        body += ".";
      }
      while (digits-- > 0) body += "0";
      num = body + tail;
    }
    if (f.plus || num[0] !== "+") {
      if (f.zero && f.widPresent && f.wid > num.length) {
        this.buf += num[0] + this.padding(f.wid - num.length) + num.slice(1);
        return;
      }
      this.pad(num);
      return;
    }
    this.pad(num.slice(1));
  }

  private badVerb(verb: string, arg: Value): void {
    this.erroring = true;
    this.buf += "%!" + verb + "(";
    const t = typeOf(arg);
    if (t) {
      this.buf += t.name + "=";
      this.printArg(arg, "v", 0);
    } else this.buf += "<nil>";
    this.buf += ")";
    this.erroring = false;
  }

  private fmtNumber(v: Value, kind: string, n: number, verb: string): void {
    if (FLOAT_KINDS.has(kind)) {
      const size = kind === "float32" ? 32 : 64;
      switch (verb) {
        case "v":
          return this.fmtFloatValue(n, size, "g", -1);
        case "b":
        case "g":
        case "G":
        case "x":
        case "X":
          return this.fmtFloatValue(n, size, verb, -1);
        case "f":
        case "e":
        case "E":
          return this.fmtFloatValue(n, size, verb, 6);
        case "F":
          return this.fmtFloatValue(n, size, "f", 6);
        default:
          return this.badVerb(verb, v);
      }
    }
    const signed = INT_KINDS.has(kind);
    switch (verb) {
      case "v":
        if (this.f.sharpV && !signed) return this.fmt0x64(n);
        return this.fmtInteger(n, 10, signed, verb, false);
      case "d":
        return this.fmtInteger(n, 10, signed, verb, false);
      case "b":
        return this.fmtInteger(n, 2, signed, verb, false);
      case "o":
      case "O":
        return this.fmtInteger(n, 8, signed, verb, false);
      case "x":
        return this.fmtInteger(n, 16, signed, verb, false);
      case "X":
        return this.fmtInteger(n, 16, signed, verb, true);
      case "c":
        return this.pad(n >= 0 && n <= 0x10ffff && !(n >= 0xd800 && n < 0xe000) ? String.fromCodePoint(n) : "\ufffd");
      case "q":
        return this.pad(quoteRune(n, this.f.plus));
      case "U":
        return this.fmtUnicode(n);
      default:
        return this.badVerb(verb, v);
    }
  }

  private fmt0x64(n: number): void {
    const sharp = this.f.sharp;
    this.f.sharp = true;
    this.fmtInteger(n, 16, false, "v", false);
    this.f.sharp = sharp;
  }

  private fmtString(s: string, verb: string, arg: Value): void {
    switch (verb) {
      case "v":
        return this.f.sharpV ? this.fmtQ(s) : this.fmtS(s);
      case "s":
        return this.fmtS(s);
      case "x":
      case "X":
        return this.fmtSbx(Buffer.from(s, "utf8"), verb === "X");
      case "q":
        return this.fmtQ(s);
      default:
        return this.badVerb(verb, arg);
    }
  }

  private fmtBytes(b: Uint8Array, verb: string, depth: number): void {
    switch (verb) {
      case "v":
      case "d":
        if (this.f.sharpV) {
          this.buf += "[]byte{" + [...b].map((c) => "0x" + c.toString(16)).join(", ") + "}";
          return;
        }
        this.buf += "[";
        b.forEach((c, i) => {
          if (i > 0) this.buf += " ";
          this.fmtInteger(c, 10, false, verb, false);
        });
        this.buf += "]";
        return;
      case "s":
        return this.fmtS(Buffer.from(b).toString("utf8"));
      case "x":
      case "X":
        return this.fmtSbx(b, verb === "X");
      case "q":
        return this.fmtQ(Buffer.from(b).toString("utf8"));
      default:
        this.printList(
          [...b].map((c) => new GoNum({ name: "uint8", kind: "uint8" }, c)),
          verb,
          depth,
        );
    }
  }

  /** `%#v` of a slice or map: its type, then `(nil)` (true: nothing more to print) or the opening `{`. */
  private openSharpV(typeName: string, collection: Value): boolean {
    this.buf += typeName;
    if (isNilCollection(collection)) {
      this.buf += "(nil)";
      return true;
    }
    this.buf += "{";
    return false;
  }

  private printList(items: Value[], verb: string, depth: number): void {
    this.buf += "[";
    items.forEach((x, i) => {
      if (i > 0) this.buf += " ";
      this.printArg(x, verb, depth + 1);
    });
    this.buf += "]";
  }

  printArg(arg: Value, verb: string, depth: number): void {
    if (arg === null || arg === undefined) {
      if (depth > 0 && this.f.sharpV) this.buf += "interface {}(nil)";
      else if (verb === "T" || verb === "v") this.pad("<nil>");
      else this.badVerb(verb, arg);
      return;
    }
    if (verb === "T") {
      this.fmtS(typeOf(arg)!.name);
      return;
    }
    switch (typeof arg) {
      case "boolean":
        if (verb === "t" || verb === "v") this.pad(arg ? "true" : "false");
        else this.badVerb(verb, arg);
        return;
      case "string":
        return this.fmtString(arg, verb, arg);
      case "number":
        return this.fmtNumber(arg, typeOf(arg)!.kind, arg, verb);
    }
    if (arg instanceof GoNum) {
      if (this.handleStringer(arg, verb)) return;
      const kind = arg.type.kind;
      if (INT_KINDS.has(kind) || UINT_KINDS.has(kind) || FLOAT_KINDS.has(kind)) return this.fmtNumber(arg, kind, arg.value, verb);
      this.buf += String(arg.value);
      return;
    }
    if (arg instanceof Uint8Array) return this.fmtBytes(arg, verb, depth);
    if (arg instanceof GoStruct) {
      if (this.handleStringer(arg, verb)) return;
      if (arg.type.kind === "ptr" && depth > 0) {
        this.buf += "0xc000010000";
        return;
      }
      const prefix = arg.type.kind === "ptr" ? "&" : "";
      const fields = arg.type.fields ?? Object.keys(arg.fields);
      this.buf += prefix + (this.f.sharpV ? arg.type.name.replace(/^\*/, "") : "") + "{";
      fields.forEach((name, i) => {
        if (i > 0) this.buf += this.f.sharpV ? ", " : " ";
        if (this.f.plusV || this.f.sharpV) this.buf += name + ":";
        this.printArg(arg.fields[name], verb, depth + 1);
      });
      this.buf += "}";
      return;
    }
    if (arg instanceof GoFunc) {
      if (verb === "v" || verb === "p") this.buf += "0x" + "4a5b60";
      else this.badVerb(verb, arg);
      return;
    }
    const type = typeOf(arg)!;
    if (Array.isArray(arg)) {
      if (type.elem?.kind === "uint8" && "sqxX".includes(verb)) {
        return this.fmtBytes(Uint8Array.from(arg.map((x) => (x instanceof GoNum ? x.value : Number(x)))), verb, depth);
      }
      if (this.f.sharpV) {
        if (this.openSharpV(type.name, arg)) return;
        arg.forEach((x, i) => {
          if (i > 0) this.buf += ", ";
          this.printArg(x, verb, depth + 1);
        });
        this.buf += "}";
        return;
      }
      return this.printList(arg, verb, depth);
    }
    const keys = Object.keys(arg).sort(compareGoStrings);
    if (this.f.sharpV) {
      if (this.openSharpV(type.name, arg)) return;
    } else this.buf += "map[";
    keys.forEach((k, i) => {
      if (i > 0) this.buf += this.f.sharpV ? ", " : " ";
      this.printArg(k, verb, depth + 1);
      this.buf += ":";
      this.printArg(arg[k], verb, depth + 1);
    });
    this.buf += this.f.sharpV ? "}" : "]";
  }

  private handleStringer(arg: GoStruct | GoNum, verb: string): boolean {
    if (this.erroring || this.f.sharpV || !arg.type.stringer) return false;
    if (!"vsxXq".includes(verb)) return false;
    this.fmtString(arg.type.stringer(arg), verb, arg);
    return true;
  }

  doPrintf(format: string, args: Value[]): void {
    const end = format.length;
    let argNum = 0;
    let afterIndex = false;
    let reordered = false;
    let goodArgNum = true;

    const parsenum = (i: number): [number, boolean, number] => {
      let num = 0;
      let isnum = false;
      while (i < end && format[i] >= "0" && format[i] <= "9") {
        if (num > 1e6) return [0, false, end];
        num = num * 10 + (format.charCodeAt(i) - 48);
        isnum = true;
        i++;
      }
      return [num, isnum, i];
    };
    const argNumber = (an: number, i: number): [number, number, boolean] => {
      if (i >= end || format[i] !== "[") return [an, i, false];
      reordered = true;
      const close = format.indexOf("]", i + 1);
      let index = 0;
      let wid = 1;
      let ok = false;
      if (end - i >= 3 && close > 0) {
        const [n, isnum, ni] = parsenum(i + 1);
        wid = close - i + 1;
        if (isnum && ni === close) {
          index = n - 1;
          ok = true;
        }
      }
      if (ok && index >= 0 && index < args.length) return [index, i + wid, true];
      goodArgNum = false;
      return [an, i + wid, ok];
    };
    const intFromArg = (an: number): [number, boolean, number] => {
      if (an >= args.length) return [0, false, an];
      const a = args[an];
      const t = typeOf(a);
      let num = 0;
      let isInt = false;
      if (t && (INT_KINDS.has(t.kind) || UINT_KINDS.has(t.kind))) {
        num = a instanceof GoNum ? a.value : (a as number);
        isInt = true;
      }
      if (num > 1e6 || num < -1e6) {
        num = 0;
        isInt = false;
      }
      return [num, isInt, an + 1];
    };

    for (let i = 0; i < end; ) {
      goodArgNum = true;
      const pct = format.indexOf("%", i);
      if (pct < 0) {
        this.buf += format.slice(i);
        break;
      }
      this.buf += format.slice(i, pct);
      i = pct + 1;
      const f = (this.f = noFlags());
      let simple = false;
      for (; i < end; i++) {
        const c = format[i];
        if (c === "#") f.sharp = true;
        else if (c === "0") f.zero = !f.minus;
        else if (c === "+") f.plus = true;
        else if (c === "-") {
          f.minus = true;
          f.zero = false;
        } else if (c === " ") f.space = true;
        else {
          if (c >= "a" && c <= "z" && argNum < args.length) {
            printArgVerb(f, c);
            this.printArg(args[argNum], c, 0);
            argNum++;
            i++;
            simple = true;
          }
          break;
        }
      }
      if (simple) continue;

      [argNum, i, afterIndex] = argNumber(argNum, i);
      if (i < end && format[i] === "*") {
        i++;
        [f.wid, f.widPresent, argNum] = intFromArg(argNum);
        if (!f.widPresent) this.buf += "%!(BADWIDTH)";
        if (f.wid < 0) {
          f.wid = -f.wid;
          f.minus = true;
          f.zero = false;
        }
        afterIndex = false;
      } else {
        [f.wid, f.widPresent, i] = parsenum(i);
        if (afterIndex && f.widPresent) goodArgNum = false;
      }
      if (i + 1 < end && format[i] === ".") {
        i++;
        if (afterIndex) goodArgNum = false;
        [argNum, i, afterIndex] = argNumber(argNum, i);
        if (i < end && format[i] === "*") {
          i++;
          [f.prec, f.precPresent, argNum] = intFromArg(argNum);
          if (f.prec < 0) {
            f.prec = 0;
            f.precPresent = false;
          }
          if (!f.precPresent) this.buf += "%!(BADPREC)";
          afterIndex = false;
        } else {
          [f.prec, f.precPresent, i] = parsenum(i);
          if (!f.precPresent) {
            f.prec = 0;
            f.precPresent = true;
          }
        }
      }
      if (!afterIndex) [argNum, i, afterIndex] = argNumber(argNum, i);
      if (i >= end) {
        this.buf += "%!(NOVERB)";
        break;
      }
      const verb = String.fromCodePoint(format.codePointAt(i)!);
      i += verb.length;
      if (verb === "%") this.buf += "%";
      else if (!goodArgNum) this.buf += `%!${verb}(BADINDEX)`;
      else if (argNum >= args.length) this.buf += `%!${verb}(MISSING)`;
      else {
        printArgVerb(f, verb);
        this.printArg(args[argNum], verb, 0);
        argNum++;
      }
    }
    if (!reordered && argNum < args.length) {
      this.f = noFlags();
      this.buf += "%!(EXTRA ";
      args.slice(argNum).forEach((a, i) => {
        if (i > 0) this.buf += ", ";
        const t = typeOf(a);
        if (!t) this.buf += "<nil>";
        else {
          this.buf += t.name + "=";
          this.printArg(a, "v", 0);
        }
      });
      this.buf += ")";
    }
  }
}

const isStringArg = (a: Value) => typeof a === "string";

/** fmt.Sprint */
export function sprint(args: Value[]): string {
  if (args.length === 1 && typeof args[0] === "string") return args[0];
  const p = new Printer();
  let prevString = false;
  args.forEach((a, i) => {
    const isString = isStringArg(a);
    if (i > 0 && !isString && !prevString) p.buf += " ";
    p.printArg(a, "v", 0);
    prevString = isString;
  });
  return p.buf;
}

/** fmt.Sprintln */
export function sprintln(args: Value[]): string {
  const p = new Printer();
  args.forEach((a, i) => {
    if (i > 0) p.buf += " ";
    p.printArg(a, "v", 0);
  });
  return p.buf + "\n";
}

/** fmt.Sprintf */
export function sprintf(format: string, args: Value[]): string {
  const p = new Printer();
  p.doPrintf(format, args);
  return p.buf;
}

/** fmt.Sprint of a single value, as a template action prints it. */
export function formatValue(v: Value): string {
  switch (typeof v) {
    case "string":
      return v;
    case "boolean":
      return v ? "true" : "false";
    case "number":
      if (Number.isSafeInteger(v)) return String(v);
  }
  const p = new Printer();
  p.printArg(v, "v", 0);
  return p.buf;
}

/** As Go's doPrintf before each argument: `%#v` and `%+v` are flags of their own, not `#` and `+`. */
function printArgVerb(f: Flags, verb: string): void {
  if (verb !== "v") return;
  f.sharpV = f.sharp;
  f.sharp = false;
  f.plusV = f.plus;
  f.plus = false;
}
