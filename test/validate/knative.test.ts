import { describe, expect, it } from "vitest";
import { emptyConfig } from "../../src/config/config.js";
import { validateRepo } from "../../src/run/validate.js";
import { tempRepo } from "../helpers.js";

/** Knative Serving's webhook rules (issue 37), each with a failing and a passing fixture. */

async function knative(yaml: string) {
  const result = await validateRepo({ root: tempRepo({ "svc.yaml": yaml }), paths: ["."], config: emptyConfig(), cacheDir: null });
  return result.findings.filter((f) => f.rule.startsWith("knative/")).map((f) => `${f.line} ${f.rule}: ${f.message}`);
}

const service = (traffic: string, template = "") => `apiVersion: serving.knative.dev/v1
kind: Service
metadata:
  name: hello
spec:
  template:
${template || "    spec:\n      containers:\n        - image: ghcr.io/example/hello:1\n"}${traffic}`;

describe("Knative Service, Configuration and Route", () => {
  it("a traffic split that sums to 90 is an error at the traffic list; one that sums to 100 passes", async () => {
    const split = (a: number, b: number) =>
      service(`  traffic:\n    - {revisionName: hello-v1, percent: ${a}}\n    - {latestRevision: true, percent: ${b}, tag: next}\n`);
    expect(await knative(split(60, 30))).toEqual(["10 knative/traffic-sum: traffic targets sum to 90, want 100: the webhook refuses the Service"]);
    expect(await knative(split(70, 30))).toEqual([]);
    // No traffic at all: the Service routes everything to its latest revision.
    expect(await knative(service(""))).toEqual([]);
  });

  it("targets: percent bounds, a configuration named in a Service, latestRevision against revisionName, a url, tags", async () => {
    const bad = service(`  traffic:
    - {revisionName: hello-v1, latestRevision: true, percent: 120}
    - {configurationName: other, percent: 0}
    - {latestRevision: true, percent: -20, tag: Canary, url: "http://x"}
    - {latestRevision: true, percent: 0, tag: blue}
    - {latestRevision: true, percent: 0, tag: blue}
`);
    expect(await knative(bad)).toEqual([
      '11 knative/traffic: may not set revisionName "hello-v1" when latestRevision is true',
      "11 knative/traffic: percent 120 is out of bounds: 0 <= it <= 100",
      "12 knative/traffic: a Service's traffic may not name a configuration (the Service owns its one): the webhook disallows configurationName",
      "13 knative/traffic: percent -20 is out of bounds: 0 <= it <= 100",
      "13 knative/traffic: tag \"Canary\" is not a DNS-1035 label (lowercase letters, digits and '-', starting with a letter)",
      "13 knative/traffic: url is set by Knative in the status, never in the spec: the webhook disallows it",
      '15 knative/traffic: multiple definitions for "blue" (traffic[3] has it too)',
    ]);
  });

  it("a Route's targets name exactly one of a revision and a configuration; with no traffic it routes nothing", async () => {
    const route = (traffic: string) => `apiVersion: serving.knative.dev/v1\nkind: Route\nmetadata: {name: r}\nspec:\n${traffic}`;
    expect(await knative(route("  traffic:\n    - {revisionName: a-1, configurationName: a, percent: 100}\n    - {percent: 0}\n"))).toEqual([
      "6 knative/traffic: expected exactly one of revisionName and configurationName, got both",
      "7 knative/traffic: expected exactly one of revisionName and configurationName, got neither",
    ]);
    expect(await knative(route("  traffic:\n    - {configurationName: a, percent: 100}\n"))).toEqual([]);
    expect(await knative(route("  {}\n"))).toEqual(["4 knative/traffic-sum: traffic targets sum to 0, want 100: the webhook refuses the Route"]);
  });

  it("the template's revision name: a DNS-1035 label with the owner's prefix; timeoutSeconds within 600", async () => {
    const template = (name: string, timeout = 300) =>
      `    metadata:\n      name: ${name}\n    spec:\n      timeoutSeconds: ${timeout}\n      containers:\n        - image: ghcr.io/example/hello:1\n`;
    expect(await knative(service("", template("other-v1")))).toEqual([
      '8 knative/revision-name: revision name "other-v1" must have the prefix "hello-" (the Service\'s name): the webhook refuses it',
    ]);
    expect(await knative(service("", template("hello_v1")))).toEqual([expect.stringContaining('revision name "hello_v1" is not a DNS-1035 label')]);
    expect(await knative(service("", template("hello-v1", 900)))).toEqual([
      "10 knative/timeout: timeoutSeconds 900 is out of bounds: 0 <= it <= 600 (config-defaults' max-revision-timeout-seconds; a cluster that raises it takes more)",
    ]);
    expect(await knative(service("", template("hello-v1")))).toEqual([]);
    const configuration = `apiVersion: serving.knative.dev/v1\nkind: Configuration\nmetadata: {generateName: cfg-}\nspec:\n  template:\n    metadata: {name: cfg-v1}\n    spec: {containers: [{image: x}]}\n`;
    expect(await knative(configuration)).toEqual([
      "6 knative/revision-name: a revision name may not be set when the Configuration has a generateName: the webhook refuses it",
    ]);
  });
});

describe("Knative in a pull request", () => {
  it("a changed template that keeps its explicit revision name is refused on update; a renamed one passes", async () => {
    const { gitRepo } = await import("../helpers.js");
    const { runDiff } = await import("../../src/run/diff.js");
    const fs = await import("node:fs");
    const path = await import("node:path");
    const svc = (name: string, image: string) =>
      `apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: hello}\nspec:\n  template:\n    metadata: {name: ${name}}\n    spec: {containers: [{image: ${image}}]}\n`;
    const { dir } = gitRepo({ "svc.yaml": svc("hello-v1", "a:1") });
    fs.writeFileSync(path.join(dir, "svc.yaml"), svc("hello-v1", "a:2"));
    const kept = (await runDiff({ root: dir, paths: ["."], base: "main", failOn: "never" })).report.findings.new.filter(
      (f) => f.rule === "knative/revision-name",
    );
    expect(kept.map((f) => `${f.line} ${f.message}`)).toEqual([
      '6 on update from the base: the template changes but keeps its revision name "hello-v1": Knative\'s webhook refuses it (saw changes without a name change); give the template a new name, or remove the name',
    ]);
    fs.writeFileSync(path.join(dir, "svc.yaml"), svc("hello-v2", "a:2"));
    const renamed = (await runDiff({ root: dir, paths: ["."], base: "main", failOn: "never" })).report.findings.new.filter(
      (f) => f.rule === "knative/revision-name",
    );
    expect(renamed).toEqual([]);
  }, 30_000);
});

describe("Knative containers", () => {
  it("one serving port, not reserved, named h2c or http1; no queue-proxy; no reserved env or mount path; a sidecar may set PORT", async () => {
    const template = (containers: string) => `    spec:\n      containers:\n${containers}`;
    const ok = `        - {image: a, ports: [{containerPort: 8080, name: h2c}], env: [{name: GREETING, value: hi}]}\n        - {image: b, env: [{name: PORT, value: "1"}]}\n`;
    expect(await knative(service("", template(ok)))).toEqual([]);
    const bad = `        - name: queue-proxy
          image: a
          ports: [{containerPort: 8012, name: grpc}]
          env: [{name: K_SERVICE, value: x}]
          volumeMounts: [{name: v, mountPath: /dev/}]
        - image: b
          ports: [{containerPort: 8081}]
`;
    expect(await knative(service("", template(bad)))).toEqual([
      "8 knative/container: more than one container port is set: only a single port is allowed across all containers",
      '9 knative/container: "queue-proxy" is a reserved container name',
      "11 knative/container: 8012 is a reserved port, please use a different value",
      "11 knative/container: Port name grpc is not allowed: name must be empty, or one of 'h2c', 'http1'",
      '12 knative/container: "K_SERVICE" is a reserved environment variable',
      '13 knative/container: mountPath "/dev" is a reserved path',
    ]);
  });
});
