/** Matching rules OAM v1alpha2 and KubeVela share. */

/**
 * Whether a trait whose definition lists `appliable` may apply to a workload known by `names`
 * (its definition's definitionRef.name and metadata.name) in API group `group`: an empty list or
 * `"*"` applies to all; `"*.<group>"` to every workload of that group; any other entry must equal
 * one of the names exactly (a bare kind does not match).
 */
export function appliesTo(appliable: string[], names: string[], group: string | undefined): boolean {
  if (appliable.length === 0 || appliable.includes("*")) return true;
  return appliable.some((entry) => (entry.startsWith("*.") ? group !== undefined && entry.slice(2) === group : names.includes(entry)));
}

/** The API group of a resource name: `deployments.apps` → `apps`, `configmaps` → `` (core). */
export function definitionGroup(resourceName: string | undefined): string | undefined {
  if (resourceName === undefined) return undefined;
  const dot = resourceName.indexOf(".");
  return dot < 0 ? "" : resourceName.slice(dot + 1);
}

/** Every cycle of a dependency graph, each once, starting at its smallest node. */
export function dataDependencyCycles(edges: Map<string, string[]>): string[][] {
  const cycles = new Map<string, string[]>();
  const state = new Map<string, "active" | "done">();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, "active");
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === "active") {
        const cycle = stack.slice(stack.indexOf(next));
        const rotated = rotateToSmallest(cycle);
        cycles.set(rotated.join("\u0000"), rotated);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...edges.keys()].sort()) if (!state.has(node)) visit(node);
  return [...cycles.values()];
}

function rotateToSmallest(cycle: string[]): string[] {
  let min = 0;
  cycle.forEach((n, i) => {
    if (n < cycle[min]!) min = i;
  });
  return [...cycle.slice(min), ...cycle.slice(0, min)];
}
