import net from "node:net";

/** Kubernetes' CEL IP and CIDR libraries: addresses as (family, 32- or 128-bit integer). */

export class IP {
  constructor(
    readonly family: 4 | 6,
    readonly bits: bigint,
    readonly text: string,
  ) {}
}

export class CIDR {
  constructor(
    readonly ip: IP,
    readonly prefix: number,
    readonly text: string,
  ) {}

  contains(ip: IP): boolean {
    if (ip.family !== this.ip.family) return false;
    const width = BigInt(this.ip.family === 4 ? 32 : 128);
    const shift = width - BigInt(this.prefix);
    return ip.bits >> shift === this.ip.bits >> shift;
  }
}

export function parseIP(text: string): IP | undefined {
  if (text.includes("%")) return undefined; // zones are refused, as Kubernetes does
  if (net.isIPv4(text)) {
    if (text.split(".").some((p) => p.length > 1 && p.startsWith("0"))) return undefined;
    return new IP(
      4,
      text.split(".").reduce((acc, p) => (acc << 8n) | BigInt(p), 0n),
      text,
    );
  }
  if (!net.isIPv6(text)) return undefined;
  let groups: string[];
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parts = (s: string) => (s ? s.split(":") : []);
  const expandV4 = (g: string[]) => {
    const last = g[g.length - 1];
    if (last && last.includes(".")) {
      const v4 = parseIP(last);
      if (!v4) return g;
      return [...g.slice(0, -1), ((v4.bits >> 16n) & 0xffffn).toString(16), (v4.bits & 0xffffn).toString(16)];
    }
    return g;
  };
  if (tail === undefined) groups = expandV4(parts(head));
  else {
    const h = parts(head);
    const t = expandV4(parts(tail));
    groups = [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  }
  return new IP(
    6,
    groups.reduce((acc, g) => (acc << 16n) | BigInt(`0x${g || "0"}`), 0n),
    text,
  );
}

export function parseCIDR(text: string): CIDR | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const ip = parseIP(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (prefix > (ip.family === 4 ? 32 : 128)) return undefined;
  return new CIDR(ip, prefix, text);
}

export function masked(c: CIDR): CIDR {
  const width = BigInt(c.ip.family === 4 ? 32 : 128);
  const shift = width - BigInt(c.prefix);
  const bits = (c.ip.bits >> shift) << shift;
  const ip = new IP(c.ip.family, bits, formatIP(c.ip.family, bits));
  return new CIDR(ip, c.prefix, `${ip.text}/${c.prefix}`);
}

export function formatIP(family: 4 | 6, bits: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((bits >> s) & 0xffn)).join(".");
  const groups = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((bits >> s) & 0xffffn).toString(16));
  // The longest run of two or more zero groups becomes "::", as Go prints it.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  if (best < 0) return groups.join(":");
  return `${groups.slice(0, best).join(":")}::${groups.slice(best + bestLen).join(":")}`;
}

export function ipKind(ip: IP): { unspecified: boolean; loopback: boolean; linkLocalMulticast: boolean; linkLocalUnicast: boolean; globalUnicast: boolean } {
  const b = ip.bits;
  if (ip.family === 4) {
    const first = Number(b >> 24n);
    const unspecified = b === 0n;
    const loopback = first === 127;
    const linkLocalMulticast = b >> 8n === 0xe00000n;
    const linkLocalUnicast = b >> 16n === 0xa9fen;
    const broadcast = b === 0xffffffffn;
    const multicast = first >= 224 && first <= 239;
    return {
      unspecified,
      loopback,
      linkLocalMulticast,
      linkLocalUnicast,
      globalUnicast: !(unspecified || loopback || linkLocalUnicast || broadcast || multicast),
    };
  }
  const unspecified = b === 0n;
  const loopback = b === 1n;
  const linkLocalMulticast = b >> 112n === 0xff02n;
  const linkLocalUnicast = b >> 118n === 0x3fan;
  const multicast = b >> 120n === 0xffn;
  return { unspecified, loopback, linkLocalMulticast, linkLocalUnicast, globalUnicast: !(unspecified || loopback || linkLocalUnicast || multicast) };
}
