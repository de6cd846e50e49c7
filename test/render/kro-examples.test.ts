import path from "node:path";
import { expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { describeShared, runCli, SHARED } from "../helpers.js";

/**
 * function-kro's own examples (../shared/corpus/real/function-kro/example), rendered as its README
 * renders them: `crossplane render xr.yaml composition.yaml functions.yaml -o observed.yaml`.
 */

const EXAMPLES = path.join(SHARED, "corpus/real/function-kro/example");

type Obj = Record<string, any>;

async function render(example: string, ...extra: string[]): Promise<{ xr: Obj; composed: Map<string, Obj> }> {
  const { code, stdout, stderr } = await runCli(["render", "xr.yaml", "composition.yaml", "functions.yaml", ...extra], path.join(EXAMPLES, example));
  expect(code, stderr).toBe(0);
  const docs = parseAllDocuments(stdout).map((d) => d.toJS() as Obj);
  const composed = new Map(docs.slice(1).map((d) => [d.metadata?.annotations?.["crossplane.io/composition-resource-name"] as string, d]));
  return { xr: docs[0]!, composed };
}

describeShared("function-kro's examples render built in", () => {
  it("basic: without observed resources only the VPC; with them the whole graph and the XR's status", async () => {
    const first = await render("basic");
    expect([...first.composed.keys()]).toEqual(["vpc"]);
    const full = await render("basic", "-o", "observed.yaml");
    expect([...full.composed.keys()].sort()).toEqual(["securityGroup", "subnetAZA", "subnetAZB", "subnetAZC", "vpc"]);
    expect(full.composed.get("subnetAZB")!.spec.forProvider).toMatchObject({ availabilityZone: "us-west-2b", vpcId: "vpc-0a1b2c3d4e5f67890" });
    expect(full.xr.status.networkingInfo).toEqual({
      vpcID: "vpc-0a1b2c3d4e5f67890",
      subnetAZA: "subnet-0aaaaaaaaaaaaaaaa",
      subnetAZB: "subnet-0bbbbbbbbbbbbbbbb",
      subnetAZC: "subnet-0cccccccccccccccc",
      securityGroup: "sg-0dddddddddddddddd",
    });
  });

  it("collections: one Subnet per zone, labelled with its index; the status lists their IDs in order", async () => {
    const { composed, xr } = await render("collections", "-o", "observed.yaml");
    const subnets = [...composed.entries()].filter(([k]) => k.startsWith("subnets-")).sort(([a], [b]) => a.localeCompare(b));
    expect(subnets.map(([, s]) => s.metadata.labels["kro.run/collection-index"])).toEqual(["0", "1", "2"]);
    expect(xr.status.networkingInfo.subnetIDs).toEqual(["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb", "subnet-0cccccccccccccccc"]);
  });

  it("conditionals: what includeWhen leaves out is not composed", async () => {
    const { composed } = await render("conditionals", "-o", "observed.yaml");
    expect(composed.has("publicSubnet")).toBe(false);
    expect(composed.has("securityGroup")).toBe(true);
  });

  it("app: readiness from readyWhen, and an integer status field stays an integer", async () => {
    const { xr } = await render("app", "-o", "observed.yaml");
    expect(xr.status).toMatchObject({ replicas: 2, address: "10.96.0.42" });
    expect(xr.status.conditions.find((c: Obj) => c.type === "Ready").status).toBe("True");
  });

  it("externalref: the referenced ConfigMap and the selected ones feed the resources and the status", async () => {
    const { xr, composed } = await render("externalref", "-e", "configmap.yaml", "-e", "subscribers.yaml");
    expect(xr.status.notifications).toEqual({ subscriberCount: "3", teams: "dev, platform, security", hasOncall: true });
    expect(composed.get("vpc")!.spec.forProvider.cidrBlock).toBe(xr.status.platformConfig.vpcCidr);
  });

  it("externalref in a repository render: the ConfigMaps the repository holds answer the externalRefs", async () => {
    const { stdout } = await runCli(["render", "--all", "."], path.join(EXAMPLES, "externalref"));
    const xr = parseAllDocuments(stdout)[0]!.toJS() as Obj;
    expect(xr.status.notifications).toEqual({ subscriberCount: "3", teams: "dev, platform, security", hasOncall: true });
    expect(stdout).toContain("kind: VPC");
  });

  it("omit: the field omit() stands for is left out", async () => {
    const { composed } = await render("omit");
    expect(composed.get("vpc")!.spec.forProvider).not.toHaveProperty("enableDnsHostnames");
  });
});
