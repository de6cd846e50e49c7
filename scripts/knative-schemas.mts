/**
 * Writes schemas/knative.yaml, the built-in schemas of Knative Serving's Service, Configuration,
 * Route and Revision (serving.knative.dev/v1), from the CRDs knative/serving publishes in
 * config/core/300-resources/ (Apache-2.0, The Knative Authors; their licence is kept in the
 * file's header). Run: npx tsx scripts/knative-schemas.mts <dir holding service.yaml, …> <commit>
 */
import fs from "node:fs";
import path from "node:path";
import * as jsyaml from "js-yaml";

const [dir, commit = "unknown"] = process.argv.slice(2);
if (!dir) {
  console.error("usage: knative-schemas.mts <dir of knative/serving config/core/300-resources> [commit]");
  process.exit(2);
}
const entries: unknown[] = [];
for (const name of ["service", "configuration", "route", "revision"]) {
  const crd = jsyaml.load(fs.readFileSync(path.join(dir, `${name}.yaml`), "utf8")) as {
    spec: { group: string; names: { kind: string }; versions: { name: string; schema?: { openAPIV3Schema?: unknown } }[] };
  };
  for (const v of crd.spec.versions) {
    if (v.schema?.openAPIV3Schema) entries.push({ apiVersion: `${crd.spec.group}/${v.name}`, kind: crd.spec.names.kind, schema: v.schema.openAPIV3Schema });
  }
}
const header = `# Knative Serving's Service, Configuration, Route and Revision (serving.knative.dev/v1): the
# openAPIV3Schema of each CRD knative/serving publishes in config/core/300-resources/ (commit
# ${commit}), written by scripts/knative-schemas.mts.
# Copyright The Knative Authors. Licensed under the Apache License, Version 2.0
# (https://www.apache.org/licenses/LICENSE-2.0); the schemas are used unmodified.
`;
fs.writeFileSync(
  path.resolve(path.dirname(new URL(import.meta.url).pathname), "../schemas/knative.yaml"),
  header + jsyaml.dump({ schemas: entries }, { lineWidth: -1, noRefs: true }),
);
console.log(`wrote schemas/knative.yaml (${entries.length} schemas)`);
