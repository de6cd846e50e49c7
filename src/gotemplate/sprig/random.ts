import { chargeChars } from "../budget.js";
import { GoError, GoNum, T, type CallContext, type Value } from "../../go/values.js";
import { fn } from "./cast.js";

/**
 * sprig's random functions. Go draws from crypto/rand; here every value comes from the
 * execution's seeded generator, so the same render gives the same strings.
 */

const S = T.string;
const n = (v: Value) => (v instanceof GoNum ? v.value : (v as number));

const LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const DIGITS = "0123456789";
const ASCII = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("");

function randomString(count: number, alphabet: string, ctx: CallContext): string {
  if (count < 0) throw new GoError(`randomstringutils illegal argument: Requested random string length ${count} is less than 0.`);
  chargeChars(count * 16, `a random string of ${count} characters`);
  let out = "";
  for (let i = 0; i < count; i++) out += alphabet[Math.floor(ctx.random() * alphabet.length)];
  return out;
}

export function randomBytes(count: number, ctx: CallContext): Buffer {
  chargeChars(count * 4, `${count} random bytes`);
  const b = Buffer.alloc(count);
  for (let i = 0; i < count; i++) b[i] = Math.floor(ctx.random() * 256);
  return b;
}

export function uuidv4(ctx: CallContext): string {
  const b = randomBytes(16, ctx);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const randomFuncs = {
  randAlphaNum: fn([T.int], S, ([c], ctx) => randomString(n(c), LETTERS + DIGITS, ctx)),
  randAlpha: fn([T.int], S, ([c], ctx) => randomString(n(c), LETTERS, ctx)),
  randAscii: fn([T.int], S, ([c], ctx) => randomString(n(c), ASCII, ctx)),
  randNumeric: fn([T.int], S, ([c], ctx) => randomString(n(c), DIGITS, ctx)),
  randBytes: fn(
    [T.int],
    S,
    ([c], ctx) => {
      if (n(c) < 0) throw new GoError("runtime error: makeslice: len out of range");
      return randomBytes(n(c), ctx).toString("base64");
    },
    { error: true },
  ),
  uuidv4: fn([], S, (_args, ctx) => uuidv4(ctx)),
};
