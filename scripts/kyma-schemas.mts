/**
 * Writes schemas/kyma.yaml, the built-in schema of Kyma's serverless Function
 * (serverless.kyma-project.io/v1alpha2), from the CRD kyma-project/serverless publishes in
 * config/buildless-serverless/templates/crds.yaml (Apache-2.0, kept in the file's header). The CRD
 * is a Helm template: its one placeholder (a label's `{{ .Chart.AppVersion }}`) is rendered away.
 * Run: npx tsx scripts/kyma-schemas.mts <crds.yaml> <commit>
 */
import fs from "node:fs";
import path from "node:path";
import * as jsyaml from "js-yaml";

const [file, commit = "unknown"] = process.argv.slice(2);
if (!file) {
  console.error("usage: kyma-schemas.mts <kyma-project/serverless config/buildless-serverless/templates/crds.yaml> [commit]");
  process.exit(2);
}
const text = fs.readFileSync(file, "utf8").replace(/\{\{\s*\.Chart\.AppVersion\s*\}\}/g, "chart");
if (/\{\{/.test(text)) throw new Error("the CRD template has a placeholder this script does not know");
const entries: unknown[] = [];
for (const doc of jsyaml.loadAll(text) as {
  kind?: string;
  spec?: { group: string; names: { kind: string }; versions: { name: string; schema?: { openAPIV3Schema?: unknown } }[] };
}[]) {
  if (doc?.kind !== "CustomResourceDefinition" || doc.spec?.names.kind !== "Function") continue;
  for (const v of doc.spec.versions)
    if (v.schema?.openAPIV3Schema) entries.push({ apiVersion: `${doc.spec.group}/${v.name}`, kind: "Function", schema: v.schema.openAPIV3Schema });
}
const header = `# Kyma's serverless Function (serverless.kyma-project.io): the openAPIV3Schema of the CRD
# kyma-project/serverless publishes in config/buildless-serverless/templates/crds.yaml (commit
# ${commit}; its Helm placeholder rendered away), written by scripts/kyma-schemas.mts.
# Copyright The Kyma Authors. Licensed under the Apache License, Version 2.0
# (https://www.apache.org/licenses/LICENSE-2.0); the schema is used unmodified.
`;
fs.writeFileSync(
  path.resolve(path.dirname(new URL(import.meta.url).pathname), "../schemas/kyma.yaml"),
  header + jsyaml.dump({ schemas: entries }, { lineWidth: -1, noRefs: true }),
);
console.log(`wrote schemas/kyma.yaml (${entries.length} schemas)`);
