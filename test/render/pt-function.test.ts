import { RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { describe, expect, it } from "vitest";
import { runPatchAndTransform } from "../../src/render/functions/patch-and-transform/function.js";

/**
 * function-patch-and-transform's RunFunction as a whole, on cases of upstream's fn_test.go
 * (crossplane-contrib/function-patch-and-transform 55116ae, TestRunFunction), written down here
 * as proto3 JSON: request in, the parts of the response the case is about out.
 */

const input = (resources: unknown[], extra: Record<string, unknown> = {}) => ({
  apiVersion: "pt.fn.crossplane.io/v1beta1",
  kind: "Resources",
  resources,
  ...extra,
});
const run = (req: unknown) => RunFunctionResponse.toJSON(runPatchAndTransform(RunFunctionRequest.fromJSON(req))) as Record<string, any>;
const b64 = (s: string) => Buffer.from(s).toString("base64");

describe("function-patch-and-transform RunFunction (upstream fn_test.go)", () => {
  it("RequiredFieldPathNotFound: a new resource is left out and the XR is not ready; an existing one (even with an empty body) is kept", () => {
    const rsp = run({
      input: input([
        {
          name: "new-resource",
          base: { apiVersion: "example.org/v1", kind: "CD", spec: {} },
          patches: [
            { type: "FromCompositeFieldPath", fromFieldPath: "spec.doesNotExist", toFieldPath: "spec.explicit", policy: { fromFieldPath: "Required" } },
          ],
        },
        {
          name: "existing-resource",
          base: { apiVersion: "example.org/v1", kind: "CD", spec: { targetObject: { keep: "me" } } },
          patches: [
            { type: "FromCompositeFieldPath", fromFieldPath: "spec.widgets", toFieldPath: "spec.watchers" },
            { type: "FromCompositeFieldPath", fromFieldPath: "spec.sourceObject", toFieldPath: "spec.targetObject", policy: { toFieldPath: "MergeObjects" } },
            { type: "FromCompositeFieldPath", fromFieldPath: "spec.doesNotExist", toFieldPath: "spec.explicit", policy: { fromFieldPath: "Required" } },
          ],
        },
      ]),
      observed: {
        composite: { resource: { apiVersion: "example.org/v1", kind: "XR", spec: { widgets: "10", sourceObject: { me: "too" } } } },
        resources: { "existing-resource": {} },
      },
      desired: { composite: { resource: { apiVersion: "example.org/v1", kind: "XR", spec: { widgets: "10" } } } },
    });
    expect(rsp.desired.composite).toEqual({ resource: { apiVersion: "example.org/v1", kind: "XR", spec: { widgets: "10" } }, ready: "READY_FALSE" });
    expect(rsp.desired.resources).toEqual({
      "existing-resource": { resource: { apiVersion: "example.org/v1", kind: "CD", spec: { watchers: "10", targetObject: { me: "too", keep: "me" } } } },
    });
    expect(rsp.results.map((r: { severity: string; message: string }) => [r.severity, r.message])).toEqual([
      [
        "SEVERITY_WARNING",
        `not adding new composed resource "new-resource" to desired state because "FromCompositeFieldPath" patch at index 0 has 'policy.fromFieldPath: Required': spec.doesNotExist: no such field`,
      ],
      [
        "SEVERITY_WARNING",
        `cannot render composed resource "existing-resource" "FromCompositeFieldPath" patch at index 2: ignoring 'policy.fromFieldPath: Required' because 'to' resource already exists: spec.doesNotExist: no such field`,
      ],
    ]);
    expect(rsp.context).toEqual({ "apiextensions.crossplane.io/environment": { apiVersion: "internal.crossplane.io/v1alpha1", kind: "Environment" } });
  });

  it("a readiness an earlier step set is not carried through", () => {
    const rsp = run({
      input: input([{ name: "r", base: { apiVersion: "example.org/v1", kind: "CD" } }]),
      observed: { composite: { resource: { apiVersion: "example.org/v1", kind: "XR" } } },
      desired: { composite: { resource: { apiVersion: "example.org/v1", kind: "XR" }, ready: "READY_TRUE" } },
    });
    expect(rsp.desired.composite.ready).toBeUndefined();
  });

  it("ObservedResourceKeepsItsName", () => {
    const rsp = run({
      input: input([{ name: "cool-resource", base: { apiVersion: "example.org/v1", kind: "CD" } }]),
      observed: {
        composite: { resource: { apiVersion: "example.org/v1", kind: "XR" } },
        resources: { "cool-resource": { resource: { apiVersion: "example.org/v1", kind: "CD", metadata: { namespace: "default", name: "cool-42" } } } },
      },
    });
    expect(rsp.desired.resources).toEqual({
      "cool-resource": { resource: { apiVersion: "example.org/v1", kind: "CD", metadata: { namespace: "default", name: "cool-42" } } },
    });
  });

  it("ExtractCompositeConnectionDetails: a v1 XR gets the extracted details beside the earlier steps'", () => {
    const rsp = run({
      input: input([
        {
          name: "cool-resource",
          base: { apiVersion: "example.org/v1", kind: "CD" },
          connectionDetails: [{ name: "very", type: "FromConnectionSecretKey", fromConnectionSecretKey: "very" }],
        },
      ]),
      observed: {
        composite: {
          resource: {
            apiVersion: "example.org/v1",
            kind: "XR",
            metadata: { name: "cool-xr" },
            spec: { writeConnectionSecretToRef: { name: "s", namespace: "ns" } },
          },
        },
        resources: {
          "cool-resource": {
            resource: { apiVersion: "example.org/v1", kind: "CD", metadata: { namespace: "default", name: "cool-42" } },
            connectionDetails: { very: b64("secret") },
          },
        },
      },
      desired: { composite: { resource: { apiVersion: "example.org/v1", kind: "XR" }, connectionDetails: { existing: b64("supersecretvalue") } } },
    });
    expect(rsp.desired.composite.connectionDetails).toEqual({ existing: b64("supersecretvalue"), very: b64("secret") });
    expect(Object.keys(rsp.desired.resources)).toEqual(["cool-resource"]);
  });

  it("ExtractCompositeConnectionDetailsV2XR: the details, the earlier steps' too, go into <xr>-connection-secret", () => {
    const rsp = run({
      input: input(
        [
          {
            name: "cool-resource",
            base: { apiVersion: "example.org/v1", kind: "CD" },
            connectionDetails: [{ name: "very", type: "FromConnectionSecretKey", fromConnectionSecretKey: "very" }],
          },
        ],
        {
          writeConnectionSecretToRef: { name: "cool-conn-secret" },
        },
      ),
      observed: {
        composite: {
          resource: { apiVersion: "example.org/v1", kind: "XR", metadata: { namespace: "default", name: "cool-xr-42" }, spec: { foo: "bar", crossplane: {} } },
        },
        resources: {
          "cool-resource": {
            resource: { apiVersion: "example.org/v1", kind: "CD", metadata: { namespace: "default", name: "cool-42" } },
            connectionDetails: { very: b64("secret") },
          },
        },
      },
      desired: { composite: { resource: { apiVersion: "example.org/v1", kind: "XR" }, connectionDetails: { existing: b64("supersecretvalue") } } },
    });
    expect(rsp.desired.composite.connectionDetails).toEqual({ existing: b64("supersecretvalue"), very: b64("secret") });
    expect(rsp.desired.resources["cool-xr-42-connection-secret"]).toEqual({
      resource: {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "cool-conn-secret" },
        data: { existing: b64("supersecretvalue"), very: b64("secret") },
        type: "connection.crossplane.io/v1alpha1",
      },
      ready: "READY_TRUE",
    });
  });

  it("PatchErrorIsFatal: the function stops before it sets the context", () => {
    const rsp = run({
      input: input([
        {
          name: "cool-resource",
          base: { apiVersion: "example.org/v1", kind: "CD" },
          patches: [
            { type: "FromCompositeFieldPath", fromFieldPath: "spec.widgets", toFieldPath: "spec.watchers" },
            { type: "FromCompositeFieldPath", fromFieldPath: "spec.widgets[0]", toFieldPath: "spec.widgets" },
          ],
        },
      ]),
      observed: { composite: { resource: { apiVersion: "example.org/v1", kind: "XR", spec: { widgets: "10" } } } },
    });
    expect(rsp.results).toEqual([
      {
        severity: "SEVERITY_FATAL",
        message: `cannot render composed resource "cool-resource" "FromCompositeFieldPath" patch at index 1: spec.widgets: not an array`,
        target: "TARGET_COMPOSITE",
      },
    ]);
    expect(rsp.context).toBeUndefined();
  });
});
