import { decodeBase32, decodeBase64, encodeBase32 } from "../encoding.js";
import { GoError, T } from "../../go/values.js";
import { fn } from "./cast.js";

/** sprig's b64enc, b64dec, b32enc, b32dec: a decoding error is returned as the text. */

const S = T.string;

function orMessage(f: () => string): string {
  try {
    return f();
  } catch (err) {
    if (err instanceof GoError) return err.message;
    throw err;
  }
}

export const encodingFuncs = {
  b64enc: fn([S], S, ([s]) => Buffer.from(s as string, "utf8").toString("base64")),
  b64dec: fn([S], S, ([s]) => orMessage(() => decodeBase64(s as string).toString("utf8"))),
  b32enc: fn([S], S, ([s]) => encodeBase32(Buffer.from(s as string, "utf8"))),
  b32dec: fn([S], S, ([s]) => orMessage(() => decodeBase32(s as string).toString("utf8"))),
};
