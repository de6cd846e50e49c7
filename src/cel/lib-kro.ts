import { createHash } from "node:crypto";
import { marshalJson, unmarshalJson } from "../go/json.js";
import { GoNum, type Value } from "../go/values.js";
import { fromCel } from "./values.js";
import type { Registrar } from "./registrar.js";

/**
 * kro's CEL libraries (kro/cel/library: random, json, maps, lists, omit) and the cel-go extensions
 * kro enables that Kubernetes' set lacks (lists.range, base64).
 */

/** What `omit()` returns: the field or list item holding it is left out of the rendered object. */
export class Omit {}
export const OMIT = new Omit();

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

export function registerKroLibraries({ env, fn, ns }: Registrar): void {
  env.registerType("kro.Omit", Omit as never);
  fn("omit(): dyn", () => OMIT);

  const random = ns("random", "KroRandom");
  fn(`${random}.seededString(int, string): string`, (_: unknown, length: bigint, seed: string) => seededString(length, seed));
  fn(`${random}.seededInt(int, int, string): int`, (_: unknown, min: bigint, max: bigint, seed: string) => {
    if (min >= max) throw new Error(`min must be less than max, got min=${min} max=${max}`);
    return min + (createHash("sha256").update(seed).digest().readBigUInt64BE(0) % (max - min));
  });

  const json = ns("json", "KroJson");
  // Go's encoding/json: every number comes back a double.
  fn(`${json}.unmarshal(string): dyn`, (_: unknown, text: string) => celDoubles(unmarshalJson(text)));
  fn(`${json}.marshal(dyn): string`, (_: unknown, v: unknown) => marshalJson(fromCel(v) as Value));

  fn("map.merge(map): map", (a: Record<string, unknown>, b: Record<string, unknown>) => Object.assign(Object.create(null), a, b));

  const lists = ns("lists", "KroLists");
  fn(`${lists}.range(int): list<int>`, (_: unknown, n: bigint) => Array.from({ length: Number(n < 0n ? 0n : n) }, (_, i) => BigInt(i)));
  fn(`${lists}.setAtIndex(list, int, dyn): list`, (_: unknown, l: unknown[], i: bigint, v: unknown) => {
    inBounds(i, l.length, "setAtIndex");
    return l.map((x, j) => (j === Number(i) ? v : x));
  });
  fn(`${lists}.insertAtIndex(list, int, dyn): list`, (_: unknown, l: unknown[], i: bigint, v: unknown) => {
    inBounds(i, l.length + 1, "insertAtIndex");
    return [...l.slice(0, Number(i)), v, ...l.slice(Number(i))];
  });
  fn(`${lists}.removeAtIndex(list, int): list`, (_: unknown, l: unknown[], i: bigint) => {
    inBounds(i, l.length, "removeAtIndex");
    return l.filter((_, j) => j !== Number(i));
  });

  const base64 = ns("base64", "KroBase64");
  fn(`${base64}.encode(bytes): string`, (_: unknown, b: Uint8Array) => Buffer.from(b).toString("base64"));
  fn(`${base64}.decode(string): bytes`, (_: unknown, s: string) => new Uint8Array(Buffer.from(s, "base64")));
}

/** kro's seededString: character i from the 4 bytes at 4i (mod 32) of the seed's SHA-256, as a big-endian uint32 mod 36. */
function seededString(length: bigint, seed: string): string {
  if (length <= 0n) throw new Error("length must be positive");
  const hash = createHash("sha256").update(seed).digest();
  let out = "";
  for (let i = 0; i < Number(length); i++) out += ALPHABET[hash.readUInt32BE((4 * i) % 32) % 36];
  return out;
}

function inBounds(i: bigint, size: number, what: string): void {
  if (i < 0n || i >= BigInt(size)) throw new Error(`${what}: index ${i} out of bounds for list of size ${size}`);
}

/** Unmarshalled JSON as CEL values: every number a double (a JS number), objects as maps. */
function celDoubles(v: Value): unknown {
  if (v instanceof GoNum) return Number(v.value);
  if (Array.isArray(v)) return v.map(celDoubles);
  if (v && typeof v === "object") {
    const out = Object.create(null) as Record<string, unknown>;
    for (const [k, x] of Object.entries(v)) out[k] = celDoubles(x as Value);
    return out;
  }
  return v;
}
