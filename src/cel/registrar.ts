import type { Environment } from "@marcbachmann/cel-js";

/** What a CEL library registers its functions with (libraries.ts makes one per environment), and the options it reads. */

type Fn = (...args: any[]) => unknown;

export interface Registrar {
  env: Environment;
  /** Registers a function, metered. */
  fn(signature: string, handler: Fn): void;
  /** A namespace of functions (`sets.contains`): a constant of its own type whose methods are the functions; returns the type's name. */
  ns(name: string, type?: string): string;
}

export interface LibraryOptions {
  now: () => Date;
  lookup: () => ((apiVersion: string, resource: string, namespace: string) => Record<string, unknown>[]) | undefined;
  /** Kyverno's libraries (ValidatingPolicy): `time.now()`, and resource/http/image/globalContext. */
  kyverno: boolean;
  /** kro's libraries (function-kro): random, json, maps, list edits, omit. */
  kro?: boolean;
}
