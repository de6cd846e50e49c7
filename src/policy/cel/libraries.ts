import type { Environment } from "@marcbachmann/cel-js";
import { metered } from "./budget.js";
import { registerClusterLibraries } from "./lib-cluster.js";
import { registerCoreLibraries } from "./lib-core.js";
import { registerKindLibraries } from "./lib-kinds.js";

/**
 * Kubernetes' CEL libraries registered on a cel-js environment, every call metered (budget.ts):
 * lib-core (lists, regex, sets, strings, math, optional, conversions), lib-kinds (quantity, URL,
 * IP, CIDR, semver), lib-cluster (what reads the cluster, and Kyverno's time).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
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
}

class Namespace {}
const namespaceTypes = new Map<string, new () => Namespace>();

function namespaceType(name: string): new () => Namespace {
  let type = namespaceTypes.get(name);
  if (!type) {
    type = { [name]: class extends Namespace {} }[name]!;
    namespaceTypes.set(name, type);
  }
  return type;
}

export function registerLibraries(env: Environment, options: LibraryOptions): void {
  const r: Registrar = {
    env,
    fn: (signature, handler) => env.registerFunction(signature, metered(handler) as never),
    ns: (name, type = `${name[0]!.toUpperCase()}${name.slice(1)}Lib`) => {
      const ctor = namespaceType(type);
      env.registerType(type, ctor as never);
      env.registerConstant(name, type, new ctor());
      return type;
    },
  };
  registerCoreLibraries(r);
  registerKindLibraries(r);
  registerClusterLibraries(r, options);
}
