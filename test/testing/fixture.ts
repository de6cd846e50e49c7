import { tempRepo } from "../helpers.js";

/**
 * A small repository for the test runner's tests: an App XRD (replicas defaults to 2), a
 * Composition of built-in functions only (patch-and-transform, auto-ready) making a Deployment and
 * a ConfigMap, and one example XR. Tests add CompositionTests, golden files and config.
 */

export const XRD = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata:
  name: apps.example.org
spec:
  group: example.org
  scope: Namespaced
  names: {kind: App, plural: apps}
  versions:
  - name: v1
    served: true
    referenceable: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [image]
            properties:
              image: {type: string}
              replicas: {type: integer, default: 2}
              size: {type: string}
          status:
            type: object
            properties:
              readyReplicas: {type: integer}
`;

export const COMPOSITION = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: apps.example.org
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: App}
  mode: Pipeline
  pipeline:
  - step: resources
    functionRef: {name: function-patch-and-transform}
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources:
      - name: deployment
        base:
          apiVersion: apps/v1
          kind: Deployment
          spec:
            selector: {matchLabels: {app: web}}
            template:
              metadata: {labels: {app: web}}
              spec:
                containers:
                - name: web
                  image: nginx
        patches:
        - {type: FromCompositeFieldPath, fromFieldPath: spec.image, toFieldPath: "spec.template.spec.containers[0].image"}
        - {type: FromCompositeFieldPath, fromFieldPath: spec.replicas, toFieldPath: spec.replicas}
        - {type: ToCompositeFieldPath, fromFieldPath: status.readyReplicas, toFieldPath: status.readyReplicas}
      - name: config
        base:
          apiVersion: v1
          kind: ConfigMap
          data: {tier: web}
        patches:
        - {type: FromCompositeFieldPath, fromFieldPath: spec.size, toFieldPath: data.size}
  - step: ready
    functionRef: {name: function-auto-ready}
`;

export const FUNCTIONS = `apiVersion: pkg.crossplane.io/v1
kind: Function
metadata: {name: function-patch-and-transform}
spec: {package: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.9.0}
---
apiVersion: pkg.crossplane.io/v1
kind: Function
metadata: {name: function-auto-ready}
spec: {package: xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.5.0}
`;

export const XR = `apiVersion: example.org/v1
kind: App
metadata: {name: shop, namespace: default}
spec:
  image: ghcr.io/example/shop:1.0
  replicas: 3
  size: large
`;

/** The fixture repository plus `files`. */
export function appRepo(files: Record<string, string> = {}): string {
  return tempRepo({ "apis/xrd.yaml": XRD, "apis/composition.yaml": COMPOSITION, "apis/functions.yaml": FUNCTIONS, "examples/app.yaml": XR, ...files });
}

/** A CompositionTest of the example XR with these assertions (YAML, indented as list items under assertResources). */
export function compositionTest(name: string, assertions: string, extra = ""): string {
  return `apiVersion: meta.dev.upbound.io/v1alpha1
kind: CompositionTest
metadata:
  name: ${name}
spec:
  xrPath: examples/app.yaml
  xrdPath: apis/xrd.yaml
  compositionPath: apis/composition.yaml
${extra}  assertResources:
${assertions}`;
}
