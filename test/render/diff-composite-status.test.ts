import { describe, expect, it } from "vitest";
import { XAPP_EXAMPLE, XAPP_XRD, xappComposition } from "../fixtures/project.js";
import { diffAfterChange } from "../helpers.js";
import { inlineTemplateStep } from "../fixtures/compositions.js";

/**
 * diff: the rendered XR's status is what the render says of the source itself. A change that only
 * moves what the functions write there said "passes · 0 sources changed".
 */

const composition = (field: string, condition = "") =>
  xappComposition(
    inlineTemplateStep(
      "t",
      `            apiVersion: example.org/v1
            kind: XApp
            status:
              ${field}: {{ .observed.composite.resource.spec.size | quote }}
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata:
              annotations:
                {{ setResourceNameAnnotation "cm" }}
            data: {a: b${condition}}
`,
    ),
  );

async function diffAfter(before: string, after: string) {
  type Report = { changes: { status: string; objects: { kind: string; status: string; fields?: { path: string }[] }[] }[] };
  return diffAfterChange<Report>(
    { "apis/xrd.yaml": XAPP_XRD, "apis/composition.yaml": before, "examples/xr.yaml": XAPP_EXAMPLE },
    { "apis/composition.yaml": after },
  );
}

describe("the rendered XR's status in the diff", () => {
  it("a status field the functions write under another name is a changed source, field by field", async () => {
    const report = await diffAfter(composition("tier"), composition("level"));
    expect(report.changes.map((c) => c.status)).toEqual(["changed"]);
    const xr = report.changes[0]!.objects.find((o) => o.kind === "XApp");
    expect(xr?.status).toBe("changed");
    expect(xr?.fields?.map((f) => f.path).sort()).toEqual(["status.level", "status.tier"]);
  });

  it("the engine's own conditions, which follow from the composed resources, are not the XR's change", async () => {
    const report = await diffAfter(composition("tier"), composition("tier", ", c: d"));
    expect(report.changes[0]!.objects.map((o) => `${o.kind} ${o.status}`)).toEqual(["ConfigMap changed"]);
  });
});
