import type { Environment } from "@marcbachmann/cel-js";
import { metered } from "./budget.js";
import { registerClusterLibraries } from "./lib-cluster.js";
import { registerCoreLibraries } from "./lib-core.js";
import { registerKindLibraries } from "./lib-kinds.js";
import { registerKroLibraries } from "./lib-kro.js";
import type { LibraryOptions, Registrar } from "./registrar.js";

/**
 * Kubernetes' CEL libraries registered on a cel-js environment, every call metered (budget.ts):
 * lib-core (lists, regex, sets, strings, math, optional, conversions), lib-kinds (quantity, URL,
 * IP, CIDR, semver), lib-cluster (what reads the cluster, and Kyverno's time).
 */

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
  if (options.kro) registerKroLibraries(r);
}
