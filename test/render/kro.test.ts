import { createHash } from "node:crypto";
import { Ready, Severity, type RunFunctionRequest } from "@crossplane-org/function-sdk-typescript";
import { describe, expect, it } from "vitest";
import { kroFlags, runKro } from "../../src/render/functions/kro/function.js";
import { findExpressions } from "../../src/render/functions/kro/template.js";
import { FunctionNotRunnable } from "../../src/runtimes/runtime.js";

/** function-kro built in: kro's graph semantics on requests written here (fn.go, kro/runtime). */

type Obj = Record<string, unknown>;

const XR = {
  apiVersion: "example.org/v1",
  kind: "XNet",
  metadata: { name: "net", namespace: "team" },
  spec: { region: "eu", replicas: 3, zones: ["a", "b"] },
  status: { old: 1 },
};

function request(input: Obj, observed: Record<string, Obj> = {}, required: Record<string, Obj[]> = {}): RunFunctionRequest {
  return {
    input,
    observed: { composite: { resource: XR }, resources: Object.fromEntries(Object.entries(observed).map(([k, r]) => [k, { resource: r }])) },
    desired: { composite: undefined, resources: {} },
    requiredResources: Object.fromEntries(Object.entries(required).map(([k, items]) => [k, { items: items.map((resource) => ({ resource })) }])),
  } as unknown as RunFunctionRequest;
}

const vpc = {
  id: "vpc",
  template: { apiVersion: "ec2/v1", kind: "VPC", metadata: {}, spec: { region: "${schema.spec.region}", replicas: "${schema.spec.replicas}" } },
};
const subnet = {
  id: "subnet",
  template: { apiVersion: "ec2/v1", kind: "Subnet", metadata: {}, spec: { vpcId: "${vpc.status.id}", zone: "${schema.spec.region}-${schema.metadata.name}" } },
};
const graph = (...resources: Obj[]) => ({ apiVersion: "kro.fn.crossplane.io/v1alpha1", kind: "ResourceGraph", resources });
const observedVpc = { apiVersion: "ec2/v1", kind: "VPC", metadata: { name: "net-vpc" }, status: { id: "vpc-1" } };
const fatalOf = (rsp: { results: { severity: Severity; message: string }[] }) => rsp.results.find((r) => r.severity === Severity.SEVERITY_FATAL)?.message;

describe("function-kro: the dependency graph", () => {
  it("renders what depends only on the XR first; a resource that reads another waits until it is observed", () => {
    const first = runKro(request(graph(subnet, vpc)));
    expect(Object.keys(first.desired!.resources)).toEqual(["vpc"]);
    expect(first.desired!.resources.vpc!.resource).toEqual({ apiVersion: "ec2/v1", kind: "VPC", metadata: {}, spec: { region: "eu", replicas: 3 } });
    expect(first.desired!.resources.vpc!.ready).toBe(Ready.READY_UNSPECIFIED);
    // The desired XR is replaced by one that carries only apiVersion and kind (no status declared).
    expect(first.desired!.composite!.resource).toEqual({ apiVersion: "example.org/v1", kind: "XNet" });

    const second = runKro(request(graph(subnet, vpc), { vpc: observedVpc }));
    expect(second.desired!.resources.subnet!.resource).toMatchObject({ spec: { vpcId: "vpc-1", zone: "eu-net" } });
  });

  it("a standalone expression keeps its type; `schema` is the observed XR without its status", () => {
    const input = graph({
      id: "cm",
      template: { apiVersion: "v1", kind: "ConfigMap", metadata: {}, data: { zones: "${schema.spec.zones}", has: "${has(schema.status)}" } },
    });
    const rsp = runKro(request(input));
    expect(rsp.desired!.resources.cm!.resource).toMatchObject({ data: { zones: ["a", "b"], has: false } });
  });

  it("includeWhen false leaves a resource out, and what depends on it", () => {
    const optional = { ...vpc, includeWhen: ["${schema.spec.region == 'us'}"] };
    const rsp = runKro(request(graph(optional, subnet), { vpc: observedVpc }));
    expect(Object.keys(rsp.desired!.resources)).toEqual([]);
    expect(fatalOf(rsp)).toBeUndefined();
  });

  it("readyWhen sets readiness from the observed object and gates dependents", () => {
    const gated = { ...vpc, readyWhen: ["${vpc.status.?ready.orValue(false)}"] };
    const notYet = runKro(request(graph(gated, subnet), { vpc: observedVpc }));
    expect(notYet.desired!.resources.vpc!.ready).toBe(Ready.READY_FALSE);
    expect(notYet.desired!.resources.subnet).toBeUndefined();
    const ready = runKro(request(graph(gated, subnet), { vpc: { ...observedVpc, status: { id: "vpc-1", ready: true } } }));
    expect(ready.desired!.resources.vpc!.ready).toBe(Ready.READY_TRUE);
    expect(ready.desired!.resources.subnet).toBeDefined();
  });

  it("the XR's status takes each field that resolves, and drops the others", () => {
    const input = { ...graph(vpc, subnet), status: { vpcID: "${vpc.status.id}", subnetID: "${subnet.status.id}" } };
    const rsp = runKro(request(input, { vpc: observedVpc }));
    expect(rsp.desired!.composite!.resource).toEqual({ apiVersion: "example.org/v1", kind: "XNet", status: { vpcID: "vpc-1" } });
  });

  it("a cycle, an unknown identifier and a status field without an expression are fatal", () => {
    const a = { id: "a", template: { apiVersion: "v1", kind: "ConfigMap", metadata: {}, data: { x: "${b.data.x}" } } };
    const b = { id: "b", template: { apiVersion: "v1", kind: "ConfigMap", metadata: {}, data: { x: "${a.data.x}" } } };
    expect(fatalOf(runKro(request(graph(a, b))))).toMatch(/graph contains a cycle: (a -> b -> a|b -> a -> b)/);
    const typo = { id: "c", template: { apiVersion: "v1", kind: "ConfigMap", metadata: {}, data: { x: "${shema.spec.region}" } } };
    expect(fatalOf(runKro(request(graph(typo))))).toContain("references unknown identifiers: [shema]");
    expect(fatalOf(runKro(request({ ...graph(vpc), status: { fixed: "1" } })))).toContain("status fields without expressions are not supported: [fixed]");
  });

  it("an interpolated expression must be a string", () => {
    const bad = { id: "c", template: { apiVersion: "v1", kind: "ConfigMap", metadata: {}, data: { x: "n-${schema.spec.replicas}" } } };
    expect(fatalOf(runKro(request(graph(bad))))).toMatch(/^cannot get desired state for resource "c": node "c": eval "n-\$\{schema.spec.replicas\}"/);
  });
});

describe("function-kro: what the review found (kro's own rules)", () => {
  const cm = (id: string, data: Obj, extra: Obj = {}) => ({ id, ...extra, template: { apiVersion: "v1", kind: "ConfigMap", metadata: {}, data } });

  it("a comprehension's or cel.bind's variable is not a dependency, even when it is named like a resource", () => {
    const rsp = runKro(request(graph(vpc, cm("other", { z: "${schema.spec.zones.map(vpc, vpc + '1')}", b: "${cel.bind(other, 'q', other + 'r')}" }))));
    expect(fatalOf(rsp)).toBeUndefined();
    expect((rsp.desired!.resources.other!.resource as Obj).data).toEqual({ z: ["a1", "b1"], b: "qr" });
  });

  it("a dependency whose includeWhen cannot be evaluated leaves its dependents out too", () => {
    const a = cm("a", { x: "1" }, { includeWhen: ["${schema.spec.nope}"] });
    const b = cm("b", { y: "${a.data.x}" });
    const rsp = runKro(request(graph(a, b), { a: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { x: "1" } } }));
    expect(Object.keys(rsp.desired!.resources)).toEqual([]);
  });

  it("an optional bool decides includeWhen and readyWhen by its value", () => {
    const input = graph(
      cm(
        "a",
        { x: "1" },
        {
          includeWhen: ["${schema.spec.?region.hasValue() ? optional.of(true) : optional.none()}"],
          readyWhen: ["${a.?data.?x.hasValue() ? optional.of(true) : optional.of(false)}"],
        },
      ),
    );
    const rsp = runKro(request(input, { a: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { x: "1" } } }));
    expect(rsp.desired!.resources.a!.ready).toBe(Ready.READY_TRUE);
  });

  it("readyWhen may read only its own resource; an unknown name anywhere is a build error", () => {
    expect(fatalOf(runKro(request(graph(cm("a", { x: "1" }, { readyWhen: ["${schema.spec.region == 'eu'}"] })))))).toContain("readyWhen");
    expect(fatalOf(runKro(request(graph(cm("a", { x: "1" }, { includeWhen: ["${regoin == 'eu'}"] })))))).toContain("references unknown identifiers: [regoin]");
  });

  it("a readyWhen that fails to evaluate is fatal for what depends on it", () => {
    const a = cm("a", { x: "1" }, { readyWhen: ["${a.data.x > 1}"] });
    const rsp = runKro(
      request(graph(a, cm("b", { y: "${a.data.x}" })), { a: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { x: "1" } } }),
    );
    expect(fatalOf(rsp)).toMatch(/^cannot get desired state for resource "b"/);
  });

  it("uint, duration and timestamp values are written as Kubernetes writes them", () => {
    const rsp = runKro(request(graph(cm("a", { u: "${1u}", d: "${duration('90m')}", t: "${timestamp('2024-01-01T00:00:00.5Z')}" }))));
    expect((rsp.desired!.resources.a!.resource as Obj).data).toEqual({ u: 1, d: "1h30m0s", t: "2024-01-01T00:00:00Z" });
  });

  it("Kubernetes' CEL libraries that kro's environment lacks (sets, math, IP) are fatal, as in the cluster", () => {
    expect(fatalOf(runKro(request(graph(cm("a", { x: "${string(sets.contains([1], [1]))}" })))))).toContain("undeclared reference to 'sets'");
    expect(fatalOf(runKro(request(graph(cm("a", { x: "${string(isIP('1.2.3.4'))}" })))))).toContain("undeclared reference to 'isIP'");
    expect(fatalOf(runKro(request(graph(cm("a", { x: "${string(size(schema.spec.zones))}" })))))).toBeUndefined();
  });

  it("cel-go's two-variable quantifiers are not rendered, never an error", () => {
    expect(() => runKro(request(graph(cm("a", { x: "${string(schema.spec.zones.all(i, v, i >= 0))}" }))))).toThrow(FunctionNotRunnable);
  });

  it("flags are read in both of kong's forms and with Go's booleans", () => {
    expect(kroFlags(["--feature-gates", "CELOmitFunction=True"])?.omitEnabled).toBe(true);
    expect(kroFlags(["--feature-gates=Other=true,CELOmitFunction=1", "--rgd-max-collection-size", "5"])).toEqual({ omitEnabled: true, maxCollectionSize: 5 });
    expect(kroFlags(["--feature-gates=CELOmitFunction=false"])?.omitEnabled).toBe(false);
  });
});

describe("function-kro: collections", () => {
  const subnets = {
    id: "subnets",
    forEach: [{ zone: "${schema.spec.zones}" }, { tier: "${['pub', 'priv']}" }],
    template: { apiVersion: "ec2/v1", kind: "Subnet", metadata: { name: "${schema.metadata.name + '-' + zone + '-' + tier}" }, spec: { zone: "${zone}" } },
  };

  it("items are the dimensions' product, the last varying fastest, keyed <id>-<name> and labelled with their index", () => {
    const rsp = runKro(request(graph(subnets)));
    const keys = Object.keys(rsp.desired!.resources);
    expect(keys).toEqual(["subnets-net-a-pub", "subnets-net-a-priv", "subnets-net-b-pub", "subnets-net-b-priv"]);
    expect((rsp.desired!.resources["subnets-net-b-pub"]!.resource as Obj).metadata).toEqual({ name: "net-b-pub", labels: { "kro.run/collection-index": "2" } });
  });

  it("every iterator names the item (metadata.name or namespace), as kro's builder requires", () => {
    const unnamed = { ...subnets, template: { ...subnets.template, metadata: { name: "${schema.metadata.name + '-' + zone}" } } };
    expect(fatalOf(runKro(request(graph(unnamed))))).toContain('forEach iterator "tier" is not used in metadata.name or metadata.namespace');
  });

  it("an empty dimension is an empty collection: no item and no error, whatever the other dimensions", () => {
    const none = { ...subnets, forEach: [{ zone: "${[]}" }, { tier: "${null}" }] };
    const rsp = runKro(request(graph(none)));
    expect(Object.keys(rsp.desired!.resources)).toEqual([]);
    expect(fatalOf(rsp)).toBeUndefined();
  });

  it("a collection over the limit its flags set is fatal", () => {
    const rsp = runKro(request(graph(subnets)), kroFlags(["--rgd-max-collection-size=3"]));
    expect(fatalOf(rsp)).toBe('cannot get desired state for resource "subnets": collection size of 4 is over the maximum collection size of 3');
  });

  it("a dependent reads the observed items as a list, in index order", () => {
    const observed = Object.fromEntries(
      ["net-b-pub", "net-a-pub"].map((n, i) => [
        `subnets-${n}`,
        { apiVersion: "ec2/v1", kind: "Subnet", metadata: { name: n, labels: { "kro.run/collection-index": String(1 - i) } }, status: { id: `id-${n}` } },
      ]),
    );
    const input = {
      ...graph({
        ...subnets,
        forEach: [{ zone: "${schema.spec.zones}" }],
        template: { ...subnets.template, metadata: { name: "${schema.metadata.name + '-' + zone + '-pub'}" } },
      }),
      status: { ids: "${subnets.map(s, s.status.id)}" },
    };
    const rsp = runKro(request(input, observed));
    expect((rsp.desired!.composite!.resource as Obj).status).toEqual({ ids: ["id-net-a-pub", "id-net-b-pub"] });
  });
});

describe("function-kro: externalRef, omit() and the flags", () => {
  it("an externalRef asks for its object by name in the XR's namespace, is read when given, and is never emitted", () => {
    const input = graph(
      { id: "config", externalRef: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "${schema.metadata.name + '-config'}" } } },
      { id: "app", template: { apiVersion: "v1", kind: "ConfigMap", metadata: {}, data: { size: "${config.data.size}" } } },
    );
    const asked = runKro(request(input));
    expect(asked.requirements!.resources).toEqual({ config: { apiVersion: "v1", kind: "ConfigMap", matchName: "net-config", namespace: "team" } });
    expect(asked.desired!.resources).toEqual({});
    const given = runKro(request(input, {}, { config: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "net-config" }, data: { size: "L" } }] }));
    expect(Object.keys(given.desired!.resources)).toEqual(["app"]);
    expect((given.desired!.resources.app!.resource as Obj).data).toEqual({ size: "L" });
  });

  const omitting = graph({
    id: "v",
    template: { apiVersion: "ec2/v1", kind: "VPC", metadata: {}, spec: { dns: "${schema.spec.region == 'us' ? true : omit()}", keep: 1 } },
  });

  it("omit() removes the field when the feature gate is on, and is fatal when it is off", () => {
    const on = runKro(request(omitting), kroFlags(["--feature-gates=CELOmitFunction=true"]));
    expect((on.desired!.resources.v!.resource as Obj).spec).toEqual({ keep: 1 });
    expect(on.results).toEqual([]);
    expect(fatalOf(runKro(request(omitting), kroFlags([])))).toContain("omit() requires the CELOmitFunction feature gate to be enabled");
  });

  it("with flags that cannot be known (a Development function), omit() works and a warning says what was assumed", () => {
    const rsp = runKro(request(omitting), undefined);
    expect((rsp.desired!.resources.v!.resource as Obj).spec).toEqual({ keep: 1 });
    expect(rsp.results.map((r) => r.severity)).toEqual([Severity.SEVERITY_WARNING]);
  });

  it("a macro the CEL engine lacks is not rendered, saying how to render it", () => {
    const input = graph({ id: "c", template: { apiVersion: "v1", kind: "ConfigMap", metadata: {}, data: { x: "${schema.spec.zones.sortBy(z, z)}" } } });
    expect(() => runKro(request(input))).toThrow(FunctionNotRunnable);
  });
});

describe("function-kro: expressions in strings and kro's CEL library", () => {
  it("finds ${…} with nested braces, ignores braces in double-quoted strings, and leaves an unterminated one as text", () => {
    expect(findExpressions('a ${ {"k": "}"}.k } b').map((m) => m.text)).toEqual([' {"k": "}"}.k ']);
    expect(findExpressions("x ${oops")).toEqual([]);
    expect(() => findExpressions("${a + ${b}}")).toThrow(/nested expressions/);
  });

  it("random.seededString is SHA-256 of the seed, 4 bytes per character, and repeats every 8", () => {
    const input = graph({ id: "c", template: { apiVersion: "v1", kind: "ConfigMap", metadata: {}, data: { s: "${random.seededString(10, 'seed')}" } } });
    const s = ((runKro(request(input)).desired!.resources.c!.resource as Obj).data as Obj).s as string;
    const hash = createHash("sha256").update("seed").digest();
    const expected = Array.from({ length: 10 }, (_, i) => "0123456789abcdefghijklmnopqrstuvwxyz"[hash.readUInt32BE((4 * i) % 32) % 36]).join("");
    expect(s).toBe(expected);
    expect(s.slice(8)).toBe(s.slice(0, 2));
  });

  it("json.unmarshal gives doubles, json.marshal sorts keys; map.merge lets the argument win", () => {
    const input = graph({
      id: "c",
      template: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {},
        data: { t: "${type(json.unmarshal('{\"n\": 1}').n) == double}", m: "${json.marshal({'b': 1, 'a': '<'})}", g: "${{'a': 1, 'b': 1}.merge({'b': 2})}" },
      },
    });
    const data = (runKro(request(input)).desired!.resources.c!.resource as Obj).data;
    expect(data).toEqual({ t: true, m: '{"a":"\\u003c","b":1}', g: { a: 1, b: 2 } });
  });
});
