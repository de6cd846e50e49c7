import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { REPO } from "../helpers.js";
import { layer, type TestRegistry } from "./registry-server.js";

/**
 * A function image for the tests and the bench: its entrypoint is a node script (a shebang to this
 * Node) that serves RunFunction with --insecure --address, adding a ConfigMap "from-package" with
 * the XR's spec.greeting, and saying whether it got a private HOME.
 */
const require = createRequire(import.meta.url);
const GRPC = pathToFileURL(require.resolve("@grpc/grpc-js")).href;
const SDK = pathToFileURL(path.join(REPO, "node_modules/@crossplane-org/function-sdk-typescript/dist/index.js")).href;

export const FUNCTION_SCRIPT = `#!${process.execPath}
(async () => {
  const grpcModule = await import(${JSON.stringify(GRPC)});
  const grpc = grpcModule.default ?? grpcModule;
  const sdk = await import(${JSON.stringify(SDK)});
  if (!process.argv.includes("--insecure")) { console.error("needs --insecure"); process.exit(2); }
  const address = process.argv.find((a) => a.startsWith("--address=")).slice("--address=".length);
  const server = new grpc.Server();
  const v1 = sdk.FunctionRunnerServiceService.runFunction;
  const handler = (call, callback) => {
    const req = call.request;
    const rsp = sdk.to(req);
    rsp.desired.resources["from-package"] = {
      resource: { apiVersion: "v1", kind: "ConfigMap", data: { greeting: String(req.observed?.composite?.resource?.spec?.greeting ?? ""), home: process.env.HOME?.includes("cci-function-home-") ? "private" : "shared" } },
      connectionDetails: {},
      ready: 1,
    };
    callback(null, rsp);
  };
  for (const p of [v1.path, v1.path.replace(".v1.", ".v1beta1.")]) server.addService({ runFunction: { ...v1, path: p } }, { runFunction: handler });
  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err) => { if (err) { console.error(err.message); process.exit(1); } });
})();
`;

/** The package's metadata and its input type, as `crossplane xpkg build` puts them in the base layer. */
export const PACKAGE_YAML = `apiVersion: meta.pkg.crossplane.io/v1
kind: Function
metadata: {name: function-greet}
spec: {}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: inputs.greet.fn.example.org}
spec:
  group: greet.fn.example.org
  names: {kind: Input, plural: inputs, singular: input, listKind: InputList}
  scope: Namespaced
  versions:
    - name: v1beta1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            apiVersion: {type: string}
            kind: {type: string}
            metadata: {type: object}
            greeting: {type: string, enum: [hej, hello]}
`;

/** Pushes the function as a two-platform image (with an attestation entry) whose top layer whites out a file. */
export async function pushGreetFunction(registry: TestRegistry, repository: string, tag: string) {
  const base = await layer([
    { name: "etc/", type: "directory" },
    { name: "etc/passwd", content: "nonroot:x:65532:65532::/home/nonroot:/sbin/nologin\n" },
  ]);
  const fn = await layer([{ name: "function", content: FUNCTION_SCRIPT, mode: 0o755 }, { name: "etc/.wh.passwd" }]);
  const meta = await layer([{ name: "package.yaml", content: PACKAGE_YAML }]);
  const image = {
    layers: [
      { bytes: base, compression: "gzip" as const },
      { bytes: fn, compression: "gzip" as const },
      { bytes: meta, compression: "gzip" as const, annotations: { "io.crossplane.xpkg": "base" } },
    ],
    entrypoint: ["/function"],
  };
  return registry.push(repository, tag, { "linux/amd64": image, "linux/arm64": image }, { attestation: true });
}
