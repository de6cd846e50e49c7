import semver from "semver";
import { asInteger, fromInt, Quantity, parseQuantity, quantityOf } from "./quantity.js";
import { CIDR, IP, formatIP, ipKind, masked, parseCIDR, parseIP } from "./network.js";
import type { Registrar } from "./registrar.js";

/** Kubernetes' value kinds: quantity, URL, IP, CIDR, semver. */

export class Url {
  constructor(readonly url: URL) {}
}

export class Semver {
  constructor(readonly version: semver.SemVer) {}
}

export function registerKindLibraries({ env, fn }: Registrar): void {
  // Quantity (Kubernetes).
  env.registerType("Quantity", Quantity as never);
  fn("isQuantity(string): bool", (s: string) => parseQuantity(s) !== undefined);
  fn("quantity(string): Quantity", (s: string) => quantityOf(s));
  fn("Quantity.sign(): int", (q: Quantity) => BigInt(q.compare(fromInt(0n))));
  fn("Quantity.isInteger(): bool", (q: Quantity) => q.isInteger());
  fn("Quantity.asInteger(): int", (q: Quantity) => asInteger(q));
  fn("Quantity.asApproximateFloat(): double", (q: Quantity) => Number(q.num) / Number(q.den));
  fn("Quantity.add(Quantity): Quantity", (a: Quantity, b: Quantity) => a.add(b));
  fn("Quantity.add(int): Quantity", (a: Quantity, b: bigint) => a.add(fromInt(b)));
  fn("Quantity.sub(Quantity): Quantity", (a: Quantity, b: Quantity) => a.add(b, -1n));
  fn("Quantity.sub(int): Quantity", (a: Quantity, b: bigint) => a.add(fromInt(b), -1n));
  fn("Quantity.isLessThan(Quantity): bool", (a: Quantity, b: Quantity) => a.compare(b) < 0);
  fn("Quantity.isGreaterThan(Quantity): bool", (a: Quantity, b: Quantity) => a.compare(b) > 0);
  fn("Quantity.compareTo(Quantity): int", (a: Quantity, b: Quantity) => BigInt(a.compare(b)));
  env.registerOperator("Quantity == Quantity", (a: Quantity, b: Quantity) => a.compare(b) === 0);

  // URL (Kubernetes).
  env.registerType("URL", Url as never);
  const url = (s: string) => {
    try {
      if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s) && !s.startsWith("/")) throw new Error();
      return new Url(new URL(s, s.startsWith("/") ? "relative:///" : undefined));
    } catch {
      throw new Error(`URL parse error during conversion from string: ${JSON.stringify(s)}`);
    }
  };
  fn("isURL(string): bool", (s: string) => {
    try {
      url(s);
      return true;
    } catch {
      return false;
    }
  });
  fn("url(string): URL", url);
  fn("URL.getScheme(): string", (u: Url) => (u.url.protocol === "relative:" ? "" : u.url.protocol.slice(0, -1)));
  fn("URL.getHost(): string", (u: Url) => u.url.host);
  fn("URL.getHostname(): string", (u: Url) => u.url.hostname.replace(/^\[(.*)\]$/, "$1"));
  fn("URL.getPort(): string", (u: Url) => u.url.port);
  fn("URL.getEscapedPath(): string", (u: Url) => u.url.pathname);
  fn("URL.getQuery(): map", (u: Url) => {
    const out = Object.create(null) as Record<string, string[]>;
    for (const [k, v] of u.url.searchParams) (out[k] ??= []).push(v);
    return out;
  });

  // IP and CIDR (Kubernetes).
  env.registerType("IP", IP as never);
  env.registerType("CIDR", CIDR as never);
  const ip = (s: string) => parseIP(s) ?? fail(`IP Address ${JSON.stringify(s)} parse error during conversion from string`);
  const cidr = (s: string) => parseCIDR(s) ?? fail(`network address ${JSON.stringify(s)} parse error during conversion from string`);
  fn("isIP(string): bool", (s: string) => parseIP(s) !== undefined);
  fn("ip(string): IP", ip);
  fn("string(IP): string", (a: IP) => formatIP(a.family, a.bits));
  fn("IP.family(): int", (a: IP) => BigInt(a.family));
  fn("IP.isUnspecified(): bool", (a: IP) => ipKind(a).unspecified);
  fn("IP.isLoopback(): bool", (a: IP) => ipKind(a).loopback);
  fn("IP.isLinkLocalMulticast(): bool", (a: IP) => ipKind(a).linkLocalMulticast);
  fn("IP.isLinkLocalUnicast(): bool", (a: IP) => ipKind(a).linkLocalUnicast);
  fn("IP.isGlobalUnicast(): bool", (a: IP) => ipKind(a).globalUnicast);
  env.registerOperator("IP == IP", (a: IP, b: IP) => a.family === b.family && a.bits === b.bits);
  fn("isCIDR(string): bool", (s: string) => parseCIDR(s) !== undefined);
  fn("cidr(string): CIDR", cidr);
  fn("string(CIDR): string", (c: CIDR) => `${formatIP(c.ip.family, c.ip.bits)}/${c.prefix}`);
  fn("CIDR.containsIP(IP): bool", (c: CIDR, a: IP) => c.contains(a));
  fn("CIDR.containsIP(string): bool", (c: CIDR, a: string) => c.contains(ip(a)));
  fn("CIDR.containsCIDR(CIDR): bool", (c: CIDR, o: CIDR) => o.prefix >= c.prefix && c.contains(o.ip));
  fn("CIDR.containsCIDR(string): bool", (c: CIDR, s: string) => {
    const o = cidr(s);
    return o.prefix >= c.prefix && c.contains(o.ip);
  });
  fn("CIDR.ip(): IP", (c: CIDR) => c.ip);
  fn("CIDR.masked(): CIDR", (c: CIDR) => masked(c));
  fn("CIDR.prefixLength(): int", (c: CIDR) => BigInt(c.prefix));
  env.registerOperator("CIDR == CIDR", (a: CIDR, b: CIDR) => a.prefix === b.prefix && a.ip.bits === b.ip.bits);

  // Semver (Kubernetes).
  env.registerType("Semver", Semver as never);
  const version = (s: string) => {
    const v = semver.parse(s);
    if (!v) throw new Error(`could not parse ${JSON.stringify(s)} as semver`);
    return new Semver(v);
  };
  fn("isSemver(string): bool", (s: string) => semver.parse(s) !== null);
  fn("semver(string): Semver", version);
  fn("Semver.major(): int", (v: Semver) => BigInt(v.version.major));
  fn("Semver.minor(): int", (v: Semver) => BigInt(v.version.minor));
  fn("Semver.patch(): int", (v: Semver) => BigInt(v.version.patch));
  fn("Semver.compareTo(Semver): int", (a: Semver, b: Semver) => BigInt(semver.compare(a.version, b.version)));
  fn("Semver.isGreaterThan(Semver): bool", (a: Semver, b: Semver) => semver.gt(a.version, b.version));
  fn("Semver.isLessThan(Semver): bool", (a: Semver, b: Semver) => semver.lt(a.version, b.version));
}

function fail(message: string): never {
  throw new Error(message);
}
