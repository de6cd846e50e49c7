import { NeedsCluster } from "./budget.js";
import { toCel } from "./values.js";
import type { LibraryOptions, Registrar } from "./registrar.js";

/** What reads the cluster: the authorizer, Kyverno's resource/http/image/imagedata/globalContext (resource.Get reads the input's objects first); and Kyverno's `time.now()`. */
export function registerClusterLibraries({ fn, ns }: Registrar, options: LibraryOptions): void {
  // What needs the cluster.
  const authorizer = ns("authorizer", "Authorizer");
  for (const m of ["group(string)", "path(string)", "resource(string)", "serviceAccount(string, string)"]) {
    fn(`${authorizer}.${m}: dyn`, () => {
      throw new NeedsCluster("authorizer");
    });
  }
  if (options.kyverno) {
    const time = ns("time", "KyvernoTime");
    fn(`${time}.now(): google.protobuf.Timestamp`, () => options.now());
    // resource.Get/List read the objects of the input; what is not there needs the cluster.
    const resource = ns("resource", "Kyvernoresource");
    const list = (apiVersion: unknown, plural: unknown, namespace: unknown) =>
      options.lookup()?.(String(apiVersion), String(plural), String(namespace ?? "")) ?? [];
    for (const spelled of ["Get", "get"]) {
      fn(`${resource}.${spelled}(dyn, dyn, dyn, dyn): dyn`, (_: unknown, apiVersion: unknown, plural: unknown, namespace: unknown, name: unknown) => {
        const found = list(apiVersion, plural, namespace).find((o) => (o.metadata as { name?: unknown } | undefined)?.name === name);
        if (!found) throw new NeedsCluster(`resource.Get of ${apiVersion} ${plural} ${namespace ? `${namespace}/` : ""}${name} (not among the input)`);
        return toCel(found).value;
      });
    }
    for (const spelled of ["List", "list"]) {
      fn(`${resource}.${spelled}(dyn, dyn, dyn): dyn`, (_: unknown, apiVersion: unknown, plural: unknown, namespace: unknown) => {
        if (!options.lookup()) throw new NeedsCluster("resource.List");
        return toCel({ items: list(apiVersion, plural, namespace) }).value;
      });
    }
    for (const [lib, methods] of [
      ["resource", ["Post/3"]],
      ["http", ["Get/1", "Get/2", "Post/2", "Post/3", "Client/1"]],
      ["image", ["GetMetadata/1"]],
      ["imagedata", ["Get/1"]],
      ["globalContext", ["Get/2"]],
    ] as const) {
      const type = lib === "resource" ? resource : ns(lib, `Kyverno${lib}`);
      for (const m of methods) {
        const [name, arity] = m.split("/") as [string, string];
        const params = Array(Number(arity)).fill("dyn").join(", ");
        // Kyverno's policies write these both ways (`resource.Get`, `resource.get`).
        for (const spelled of new Set([name, name[0]!.toLowerCase() + name.slice(1)])) {
          fn(`${type}.${spelled}(${params}): dyn`, () => {
            throw new NeedsCluster(`${lib}.${spelled}`);
          });
        }
      }
    }
  }
}
