import type { CallContext } from "../go/values.js";

/**
 * Where random and time functions get their values. A render must be reproducible, so the
 * default is a fixed seed and a fixed clock; a caller that wants other values passes them.
 */
export interface ContextOptions {
  /** Seed of the pseudo-random generator (an unsigned 32-bit integer). */
  seed?: number;
  /** The clock, in milliseconds since the epoch. */
  now?: number;
}

export const DEFAULT_SEED = 1;
/** 2025-01-01T00:00:00Z */
export const DEFAULT_NOW = Date.UTC(2025, 0, 1);

/** A seeded generator (mulberry32): same seed, same sequence, on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function callContext(opts: ContextOptions = {}): CallContext {
  const now = opts.now ?? DEFAULT_NOW;
  return { random: seededRandom(opts.seed ?? DEFAULT_SEED), now: () => now };
}
