import { encodeBase64, hashSync } from "bcryptjs";

/**
 * bcrypt as golang.org/x/crypto/bcrypt's GenerateFromPassword writes it ("$2a$", two-digit cost,
 * the 16-byte salt and 23 hash bytes in bcrypt's base64), computed by bcryptjs. The salt is the
 * caller's (the execution's seeded generator), so the same render gives the same hash.
 */
export function bcrypt(password: string, salt: Uint8Array, cost = 10): string {
  // Go hashes the string's bytes; a lone surrogate has none in UTF-8 and becomes U+FFFD, as Buffer writes it
  const utf8 = Buffer.from(password, "utf8");
  if (utf8.length > 72) throw new Error("bcrypt: password length exceeds 72 bytes");
  if (salt.length !== 16) throw new Error(`bcrypt: salt must be 16 bytes, not ${salt.length}`);
  const setting = `$2a$${String(cost).padStart(2, "0")}$${encodeBase64(salt, 16)}`;
  return hashSync(utf8.toString("utf8"), setting);
}
