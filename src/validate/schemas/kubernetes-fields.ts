import fs from "node:fs";
import path from "node:path";
import type { ErrorObject } from "ajv";
import { toPointer } from "../../manifest/pointer.js";
import { isPlainObject } from "../../core/json.js";
import { schemasDir } from "./builtin.js";

/**
 * The fields of Kubernetes core kinds (schemas/kubernetes-fields.json, written by
 * scripts/kubernetes-fields.ts from the `kubernetes-models` declarations): a field's type is 0 for a
 * scalar, 1 for anything (RawExtension, free-form JSON), the name of an object type, `[type]` for a
 * list, `{"*": type}` for a map, `{"|": [types]}` for either, by the value's shape (a schema's
 * `items`: one schema or a list of them).
 */
export type FieldType = 0 | 1 | string | [FieldType] | { "*": FieldType } | { "|": FieldType[] };

export interface FieldTable {
  source: string;
  kinds: Record<string, string>;
  types: Record<string, Record<string, FieldType>>;
}

let table: FieldTable | undefined;

function fieldTable(): FieldTable {
  return (table ??= JSON.parse(fs.readFileSync(path.join(schemasDir(), "kubernetes-fields.json"), "utf8")) as FieldTable);
}

/**
 * The fields of an object of a core kind (`apps/v1/Deployment`) that its kind does not have, as
 * ajv's additionalProperties errors with the fields allowed there (the API server refuses them
 * under strict field validation and server-side apply). Types are the model validators' business:
 * a value of another shape is not walked.
 */
export function unknownCoreFields(kind: string, object: unknown): ErrorObject[] {
  const root = fieldTable().kinds[kind];
  return root ? unknownFieldsOf(root, object) : [];
}

/** The type key of a CRD's schema node (JSONSchemaProps), whose fields are the schema keywords. */
export const SCHEMA_PROPS = "kubernetes-models/apiextensions.k8s.io/v1/JSONSchemaProps";

/** The same for a value of one type of the table (an XRD's openAPIV3Schema is a JSONSchemaProps). */
export function unknownFieldsOf(root: string, object: unknown): ErrorObject[] {
  const { types } = fieldTable();
  const errors: ErrorObject[] = [];
  const path: (string | number)[] = [];
  const walk = (type: FieldType, value: unknown): void => {
    if (type === 0 || type === 1) return;
    if (Array.isArray(type)) {
      if (Array.isArray(value)) value.forEach((item, i) => visit(type[0], item, i));
      return;
    }
    if (typeof type === "object" && "|" in type) {
      const member = type["|"].find((t) => Array.isArray(t) === Array.isArray(value));
      if (member !== undefined) walk(member, value);
      return;
    }
    if (!isPlainObject(value)) return;
    if (typeof type === "object") {
      for (const [k, v] of Object.entries(value)) visit(type["*"], v, k);
      return;
    }
    const fields = types[type]!;
    for (const [k, v] of Object.entries(value)) {
      if (Object.hasOwn(fields, k)) visit(fields[k]!, v, k);
      else
        errors.push({
          keyword: "additionalProperties",
          instancePath: toPointer(path),
          schemaPath: "#/additionalProperties",
          params: { additionalProperty: k, known: Object.keys(fields).sort() },
        });
    }
  };
  const visit = (type: FieldType, value: unknown, segment: string | number) => {
    path.push(segment);
    walk(type, value);
    path.pop();
  };
  walk(root, object);
  return errors;
}
