import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { GitHubClient } from "../../src/report/github/client.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareToLive } from "../../src/drift/cluster.js";
import type { DriftItem, DriftReport } from "../../src/drift/report.js";
import { syncDriftIssue } from "../../src/report/github/drift-issue.js";
import { FakeGitHub, quietOctokit, NAME, OWNER } from "../fake-github.js";
import { gitRepo, REPO, runCli, type GitRepo } from "../helpers.js";

function examplesRepo(): GitRepo {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-drift-"));
  fs.cpSync(path.join(REPO, "examples"), dir, { recursive: true });
  return gitRepo(dir);
}

const cli = (cwd: string, ...argv: string[]) => runCli(argv, cwd);

describe("drift against a committed snapshot", () => {
  it("two sources of one name in one file, in two namespaces: no drift right after the snapshot", async () => {
    const { dir } = examplesRepo();
    const xr = fs.readFileSync(path.join(dir, "crossplane/xr.yaml"), "utf8");
    fs.writeFileSync(
      path.join(dir, "crossplane/xr.yaml"),
      `${xr.replace("namespace: shop", "namespace: zzz")}---\n${xr.replace("namespace: shop", "namespace: aaa").replace("replicas: 3", "replicas: 5")}`,
    );
    await cli(dir, "drift", "--snapshot", "rendered", "--update-snapshot");
    const report = JSON.parse((await cli(dir, "drift", "--snapshot", "rendered", "--format", "json")).stdout) as DriftReport;
    expect(report.items).toEqual([]);
  });

  it("a second source of the same kind and name is an added source; the first is still compared with its own snapshot", async () => {
    const { dir, commit } = examplesRepo();
    await cli(dir, "drift", "--snapshot", "rendered", "--update-snapshot");
    commit("snapshot");
    const xr = fs.readFileSync(path.join(dir, "crossplane/xr.yaml"), "utf8");
    fs.writeFileSync(path.join(dir, "crossplane/a-xr.yaml"), xr.replace("storefront:1.4.2", "storefront:2.0.0"));
    const report = JSON.parse((await cli(dir, "drift", "--snapshot", "rendered", "--format", "json")).stdout) as DriftReport;
    expect(report.items.map((i) => `${i.kind} ${i.object ?? i.source}`)).toEqual(["source-added WebApp storefront (crossplane/a-xr.yaml)"]);
    const update = await cli(dir, "drift", "--snapshot", "rendered", "--update-snapshot");
    expect(update.stderr).toContain("wrote webapp-shop-storefront--crossplane_a-xr.yaml");
    expect(update.stderr).toContain("wrote webapp-shop-storefront--crossplane_xr.yaml");
  });

  it('a source that does not render is drift unknown, never "none"; the snapshot update says it wrote errors, not objects', async () => {
    const { dir } = examplesRepo();
    const functions = path.join(dir, "crossplane/functions.yaml");
    fs.writeFileSync(functions, fs.readFileSync(functions, "utf8").replace(/package: \S+/, "package: registry.example.org/acme/function-untrusted:v1.0.0"));
    const update = await cli(dir, "drift", "--snapshot", "rendered", "--update-snapshot");
    expect(update.stderr).toContain("note: 1 of its sources did not render (1 not rendered, 0 failed)");
    const again = await cli(dir, "drift", "--snapshot", "rendered", "--format", "json");
    const report = JSON.parse(again.stdout) as DriftReport;
    expect(report.items).toEqual([]);
    expect(report.states).toEqual({ rendered: 1, notRendered: 1, failed: 0 });
    const md = (await cli(dir, "drift", "--snapshot", "rendered")).stdout;
    expect(md).toContain("### ⚠️ composition-ci drift: none among the 1 rendered source; 1 unknown (did not render)");
    expect(md).toContain("1 of 2 sources rendered, 1 not rendered (a function composition-ci cannot run here): their drift is unknown");
  });

  it("update the snapshot, change a Composition, see the drift, restore, see it clean", async () => {
    const { dir, git, commit } = examplesRepo();
    const update = await cli(dir, "drift", "--snapshot", "rendered", "--update-snapshot");
    expect(update.code).toBe(0);
    expect(update.stderr).toContain("2 written, 0 removed");
    expect(update.stderr).toContain("wrote webapp-shop-storefront.yaml");
    expect(fs.readdirSync(path.join(dir, "rendered")).sort()).toEqual(["applicationconfiguration-shop-storefront.yaml", "webapp-shop-storefront.yaml"]);
    commit("snapshot");
    const clean = await cli(dir, "drift", "--snapshot", "rendered", "--fail-on-drift");
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain("### ✅ composition-ci drift: none");

    const composition = path.join(dir, "crossplane/composition.yaml");
    fs.writeFileSync(composition, fs.readFileSync(composition, "utf8").replace("                  - port: 80\n", "                  - port: 81\n"));
    fs.writeFileSync(
      path.join(dir, "crossplane/xr-2.yaml"),
      "apiVersion: platform.example.org/v1alpha1\nkind: WebApp\nmetadata: {name: checkout, namespace: shop}\nspec: {image: nginx}\n",
    );
    const drifted = await cli(dir, "drift", "--snapshot", "rendered", "--fail-on-drift", "--format", "json");
    expect(drifted.code).toBe(1);
    const report = JSON.parse(drifted.stdout) as DriftReport;
    expect(report.items.map((i) => `${i.kind} ${i.object ?? i.source}`)).toEqual([
      "source-added WebApp checkout (crossplane/xr-2.yaml)",
      "object-changed Service/service",
    ]);
    expect(report.items[1]!.detail).toContain("-    - port: 80\n+    - port: 81");
    expect(report.items[1]!.detail).toContain("--- snapshot/Service/service");
    expect(report.items.every((i) => i.state === "new")).toBe(true);

    fs.writeFileSync(path.join(dir, "previous.json"), drifted.stdout);
    const again = JSON.parse((await cli(dir, "drift", "--snapshot", "rendered", "--previous", "previous.json", "--format", "json")).stdout) as DriftReport;
    expect(again.items.map((i) => i.state)).toEqual(["persisting", "persisting"]);
    expect(again.fingerprint).toBe(report.fingerprint);
    // The same item, drifted further: changed, not persisting.
    fs.writeFileSync(composition, fs.readFileSync(composition, "utf8").replace("                  - port: 81\n", "                  - port: 82\n"));
    const moved = JSON.parse((await cli(dir, "drift", "--snapshot", "rendered", "--previous", "previous.json", "--format", "json")).stdout) as DriftReport;
    expect(moved.items.map((i) => i.state)).toEqual(["persisting", "changed"]);

    git("checkout", "-q", "--", ".");
    fs.rmSync(path.join(dir, "crossplane/xr-2.yaml"));
    expect((await cli(dir, "drift", "--snapshot", "rendered", "--fail-on-drift")).code).toBe(0);
  }, 30_000);

  it("a source that no longer renders, or that is gone, is drift; the snapshot itself is never scanned", async () => {
    const { dir } = examplesRepo();
    await cli(dir, "drift", "--snapshot", "rendered", "--update-snapshot");
    fs.rmSync(path.join(dir, "oam"), { recursive: true });
    const xr = path.join(dir, "crossplane/xr.yaml");
    fs.writeFileSync(
      xr,
      fs
        .readFileSync(xr, "utf8")
        .replace("platform.example.org/v1alpha1", "platform.example.org/v1alpha1")
        .replace("kind: WebApp", "kind: WebApp\n# no composition now:")
        .replace("name: storefront", "name: storefront\n  labels: {x: y}"),
    );
    const composition = path.join(dir, "crossplane/composition.yaml");
    fs.writeFileSync(composition, fs.readFileSync(composition, "utf8").replace("name: function-patch-and-transform", "name: function-missing-here"));
    const report = JSON.parse((await cli(dir, "drift", "--snapshot", "rendered", "--format", "json")).stdout) as DriftReport;
    const kinds = report.items.map((i) => i.kind);
    expect(kinds).toContain("source-removed");
    expect(kinds).toContain("source-not-rendered");
    expect(report.items.find((i) => i.kind === "source-not-rendered")!.detail).toContain("function function-missing-here is not in the repository");
    expect(report.sources).toBe(1);
  }, 30_000);

  it("needs a baseline; --update-snapshot needs --snapshot", async () => {
    const { dir } = examplesRepo();
    expect((await cli(dir, "drift")).stderr).toContain("drift needs a baseline");
    expect((await cli(dir, "drift", "--cluster", "--update-snapshot")).code).toBe(2);
  });
});

/** A kubectl on PATH answering `get` from recorded objects (the test's stand-in for a cluster). */
function fakeKubectl(objects: object[], mode: "ok" | "unreachable" = "ok"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-kubectl-"));
  fs.writeFileSync(path.join(dir, "objects.json"), JSON.stringify(objects));
  const script = `#!/usr/bin/env node
const fs = require("fs");
const args = process.argv.slice(2);
if (${JSON.stringify(mode)} === "unreachable") { process.stderr.write("Unable to connect to the server: dial tcp 127.0.0.1:6443: connect: connection refused\\n"); process.exit(1); }
fs.appendFileSync(${JSON.stringify(path.join(dir, "calls.log"))}, args.join(" ") + "\\n");
const objects = JSON.parse(fs.readFileSync(${JSON.stringify(path.join(dir, "objects.json"))}, "utf8"));
// kubectl's own parsing: options until \`--\`, then RESOURCE [NAME]; an option after the verb is refused here.
const dash = args.indexOf("--");
if (dash < 0) { process.stderr.write("no -- in " + args.join(" ")); process.exit(3); }
const options = args.slice(1, dash);
const [resource, name] = args.slice(dash + 1);
const option = (flag) => options.find((o) => o.startsWith(flag + "="))?.slice(flag.length + 1);
const kind = resource.split(".")[0];
const ns = option("--namespace");
const selector = option("--selector");
const match = objects.filter((o) => o.kind === kind && (!ns || o.metadata.namespace === ns));
if (name) {
  const found = match.find((o) => o.metadata.name === name);
  if (!found) { process.stderr.write('Error from server (NotFound): ' + kind + ' "' + name + '" not found\\n'); process.exit(1); }
  process.stdout.write(JSON.stringify(found));
} else {
  const [k, v] = selector.split("=");
  process.stdout.write(JSON.stringify({ kind: "List", items: match.filter((o) => (o.metadata.labels || {})[k] === v) }));
}
`;
  fs.writeFileSync(path.join(dir, "kubectl"), script, { mode: 0o755 });
  return dir;
}

describe("drift against a cluster (a fake kubectl on PATH)", () => {
  const live = (resource: string, name: string, spec: object, extra: object = {}) => ({
    metadata: {
      name,
      namespace: "shop",
      labels: { "crossplane.io/composite": "storefront" },
      annotations: { "crossplane.io/composition-resource-name": resource, "kubectl.kubernetes.io/last-applied-configuration": "{}" },
      uid: "0b1c",
      resourceVersion: "123",
      managedFields: [{ manager: "crossplane" }],
      ownerReferences: [
        { apiVersion: "platform.example.org/v1alpha1", kind: "WebApp", name: "storefront", uid: "9f9f", controller: true, blockOwnerDeletion: true },
      ],
      generateName: "storefront-",
    },
    spec,
    status: { observedGeneration: 3 },
    ...extra,
  });

  it("only fields the render sets count: status, server metadata and defaults are ignored; missing and orphaned objects are drift", async () => {
    const { dir } = examplesRepo();
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      ...live("deployment", "storefront-abc12", {
        replicas: 5,
        progressDeadlineSeconds: 600,
        selector: { matchLabels: { app: "storefront" } },
        template: {
          metadata: { labels: { app: "storefront" } },
          spec: { containers: [{ name: "web", image: "ghcr.io/example/storefront:1.4.2", imagePullPolicy: "IfNotPresent" }], restartPolicy: "Always" },
        },
      }),
    };
    const orphan = { apiVersion: "v1", kind: "ConfigMap", ...live("old-config", "storefront-zz", {}) };
    const stray = { apiVersion: "apps/v1", kind: "Deployment", ...live("legacy", "storefront-legacy", {}) };
    const bin = fakeKubectl([deployment, orphan, stray]);
    const PATH = `${bin}${path.delimiter}${process.env.PATH}`;
    const prev = process.env.PATH;
    process.env.PATH = PATH;
    try {
      const r = await cli(dir, "drift", "crossplane", "--cluster", "--format", "json");
      expect(r.stderr).toBe("");
      const items = (JSON.parse(r.stdout) as DriftReport).items;
      const summary = items.map((i: DriftItem) => `${i.kind} ${i.object}`);
      expect(summary).toEqual(["cluster-changed Deployment/deployment", "cluster-missing Service/service", "cluster-orphan Deployment/legacy"]);
      expect(items[0]!.detail).toBe("spec.replicas: render sets 3, cluster has 5");
      const calls = fs.readFileSync(path.join(bin, "calls.log"), "utf8");
      expect(calls).toContain("get -o json --namespace=shop --selector=crossplane.io/composite=storefront -- Deployment.v1.apps");
      expect(calls).toContain("get -o json --namespace=shop --selector=crossplane.io/composite=storefront -- Service");
    } finally {
      process.env.PATH = prev;
    }
  }, 30_000);

  it("rendered names are never read as kubectl options: invalid names are not looked up, the rest follow --", async () => {
    const { dir } = examplesRepo();
    const composition = path.join(dir, "crossplane/composition.yaml");
    const text = fs
      .readFileSync(composition, "utf8")
      .replace("              kind: Service\n", "              kind: Service\n              metadata: {name: --kubeconfig=evilkc}\n");
    fs.writeFileSync(composition, text);
    fs.writeFileSync(path.join(dir, "evilkc"), "apiVersion: v1\nkind: Config\nusers: [{name: x, user: {exec: {command: sh, args: [-c, 'touch pwned']}}}]\n");
    const bin = fakeKubectl([]);
    // v2.2's render prints the invalid name (the reconciler of v2.3+ refuses to render it at all).
    const r = await cli(dir, "drift", "crossplane", "--cluster", "--kubectl", path.join(bin, "kubectl"), "--format", "json", "--crossplane-version", "v2.2");
    const report = JSON.parse(r.stdout) as DriftReport;
    expect(report.items.find((i) => i.object === "Service/service")!.detail).toContain(
      'not looked up: its name "--kubeconfig=evilkc" is not a valid Kubernetes name',
    );
    const calls = fs.readFileSync(path.join(bin, "calls.log"), "utf8").trim().split("\n");
    for (const call of calls) {
      const [options, positionals] = call.split(" -- ");
      expect(options).not.toContain("kubeconfig");
      expect(positionals).toBeDefined();
    }
    expect(fs.existsSync(path.join(dir, "pwned"))).toBe(false);
  }, 30_000);

  it("an unreachable cluster or a missing kubectl is a clear error", async () => {
    const { dir } = examplesRepo();
    const bin = fakeKubectl([], "unreachable");
    const r = await cli(dir, "drift", "crossplane", "--cluster", "--kubectl", path.join(bin, "kubectl"));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Unable to connect to the server");
    expect(r.stderr).toContain("is the cluster reachable");
    const missing = await cli(dir, "drift", "crossplane", "--cluster", "--kubectl", path.join(bin, "no-such-kubectl"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("kubectl not found");
  });

  it("compares lists item by item, and a rendered Secret's stringData with the live data", () => {
    expect(compareToLive({ spec: { ports: [{ port: 80 }] } }, { spec: { ports: [{ port: 80, protocol: "TCP" }, { port: 81 }] } })).toEqual([
      "spec.ports: render sets 1 items, cluster has 2",
    ]);
    expect(compareToLive({ metadata: { name: "a", labels: { x: "1" } } }, { metadata: { name: "a", labels: { x: "1", y: "2" }, uid: "u" } })).toEqual([]);
  });
});

describe("the drift issue (against the test GitHub API)", () => {
  const github = new FakeGitHub();
  let octokit: GitHubClient;
  beforeAll(async () => {
    octokit = quietOctokit(await github.start());
  });
  afterAll(() => github.stop());

  const report = (items: number, fingerprint: string): DriftReport => ({
    version: 1,
    tool: { name: "composition-ci", version: "t" },
    baselines: { snapshot: "rendered", cluster: false, previous: "drift.json" },
    sources: 2,
    states: { rendered: 2, notRendered: 0, failed: 0 },
    items: Array.from({ length: items }, (_, i) => ({ id: `i${i}`, kind: "object-changed", source: "s", object: `o${i}`, state: "new" })),
    fingerprint,
  });
  const sync = (items: number, fingerprint: string) =>
    syncDriftIssue({ octokit, owner: OWNER, repo: NAME, key: "default", report: report(items, fingerprint), markdown: `drift ${fingerprint}` });
  const open = () => github.issues.filter((i) => i.state === "open");

  it("create, update, comment on change, close when clean, reopen; never two open issues", async () => {
    expect((await sync(0, "clean")).action).toBe("none");
    expect(github.issues).toHaveLength(0);
    const created = await sync(2, "aaa");
    expect(created.action).toBe("created");
    expect(github.issues[0]!.labels).toEqual([{ name: "composition-ci-drift" }]);
    expect(github.issues[0]!.body).toContain("<!-- composition-ci-drift:default -->");
    expect(await sync(2, "aaa")).toMatchObject({ action: "updated", commented: false });
    expect(await sync(3, "bbb")).toMatchObject({ action: "updated", commented: true });
    expect(github.issues[0]!.comments.at(-1)).toBe("The drift changed: now 3 items (3 new).");
    expect(github.issues[0]!.body).toContain("drift bbb");
    expect((await sync(0, "clean")).action).toBe("closed");
    expect(github.issues[0]!.state).toBe("closed");
    expect(github.issues[0]!.comments.at(-1)).toContain("No drift any more");
    expect((await sync(0, "clean")).action).toBe("none");
    expect((await sync(1, "ccc")).action).toBe("reopened");
    expect(github.issues).toHaveLength(1);
    expect(open()).toHaveLength(1);
    expect(github.issues[0]!.comments.at(-1)).toBe("⚠️ Drift is back: 1 item.");
  });

  it("another key keeps its own issue", async () => {
    await syncDriftIssue({ octokit, owner: OWNER, repo: NAME, key: "staging", report: report(1, "x"), markdown: "x" });
    expect(open()).toHaveLength(2);
    expect(github.issues.at(-1)!.title).toBe("composition-ci: drift detected (staging)");
  });
});

describe("drift snapshots keep no secret, in any form", () => {
  it("a password patched through ToBase64 into a ConfigMap is masked in the committed snapshot and the report", async () => {
    const { dir } = examplesRepo();
    const xrd = path.join(dir, "crossplane/xrd.yaml");
    fs.writeFileSync(
      xrd,
      fs.readFileSync(xrd, "utf8").replace("                image:\n", "                password: {type: string}\n                image:\n"),
    );
    const xr = path.join(dir, "crossplane/xr.yaml");
    fs.writeFileSync(xr, fs.readFileSync(xr, "utf8").replace("  replicas: 3", "  replicas: 3\n  password: correct-horse-battery"));
    const composition = path.join(dir, "crossplane/composition.yaml");
    const cm = `          - name: settings
            base: {apiVersion: v1, kind: ConfigMap, data: {}}
            patches:
              - type: FromCompositeFieldPath
                fromFieldPath: spec.password
                toFieldPath: data.encoded
                transforms: [{type: string, string: {type: Convert, convert: ToBase64}}]
`;
    fs.writeFileSync(composition, fs.readFileSync(composition, "utf8").replace("          - name: service\n", `${cm}          - name: service\n`));
    await cli(dir, "drift", "--snapshot", "rendered", "--update-snapshot");
    const snapshot = fs
      .readdirSync(path.join(dir, "rendered"))
      .map((f) => fs.readFileSync(path.join(dir, "rendered", f), "utf8"))
      .join("\n");
    const encoded = Buffer.from("correct-horse-battery").toString("base64");
    expect(snapshot).toContain("encoded: <masked sha256:");
    expect(snapshot).not.toContain(encoded);
    expect(snapshot).not.toContain("correct-horse-battery");
    const report = await cli(dir, "drift", "--snapshot", "rendered", "--format", "json");
    expect(report.stdout).not.toContain(encoded);
  }, 30_000);
});
