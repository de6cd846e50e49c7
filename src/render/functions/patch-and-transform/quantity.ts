/** Kubernetes resource quantities (`1000m`, `1.5Gi`, `2e3`) as an approximate float64. */

const QUANTITY = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

export function parseQuantity(input: string): number {
  const s = input.trim() === input ? input : "";
  const m = QUANTITY.exec(s);
  if (!m || !/[0-9]/.test(m[1]!) || (m[1]!.match(/\./g)?.length ?? 0) > 1) {
    throw new Error(`quantities must match the regular expression '${QUANTITY.source}'`);
  }
  const value = Number(m[1]);
  const suffix = m[2]!;
  if (suffix in BINARY) return value * BINARY[suffix]!;
  if (suffix in DECIMAL) return value * 10 ** DECIMAL[suffix]!;
  const exp = /^[eE]([-+]?[0-9]+)$/.exec(suffix);
  if (exp) return value * 10 ** Number(exp[1]);
  throw new Error("unable to parse quantity's suffix");
}
