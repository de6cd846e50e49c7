import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, runCli, tempRepo } from "../helpers.js";
import { parseXml } from "./xml.js";

/**
 * `composition-ci test` prints what the tests rendered: a secret that only a render made (a
 * Secret a function composes, from values no manifest holds as a secret) is masked in every
 * format, as is one only a golden file holds.
 */

const GENERATED = "storefront-Xk9q-3-generated";
const OLD = "storefront-OLDv-2-generated";
const b64 = (s: string) => Buffer.from(s).toString("base64");

function repository(): string {
  const dir = tempRepo({});
  fs.cpSync(path.join(REPO, "examples/crossplane"), dir, { recursive: true });
  const edit = (file: string, from: string, to: string) => {
    const text = fs.readFileSync(path.join(dir, file), "utf8");
    expect(text, file).toContain(from);
    fs.writeFileSync(path.join(dir, file), text.replace(from, to));
  };
  // A Secret composed from the XR's name and replicas: its password is in no manifest.
  edit(
    "composition.yaml",
    "          - name: service\n",
    [
      "          - name: credentials",
      "            base: {apiVersion: v1, kind: Secret, metadata: {namespace: shop}, stringData: {}}",
      "            patches:",
      "              - type: CombineFromComposite",
      "                combine:",
      "                  variables: [{fromFieldPath: metadata.name}, {fromFieldPath: spec.replicas}]",
      "                  strategy: string",
      '                  string: {fmt: "%s-Xk9q-%d-generated"}',
      "                toFieldPath: stringData.password",
      "              - type: CombineFromComposite",
      "                combine:",
      "                  variables: [{fromFieldPath: metadata.name}, {fromFieldPath: spec.replicas}]",
      "                  strategy: string",
      '                  string: {fmt: "postgres://app:%s-Xk9q-%d-generated@db:5432/shop"}',
      "                toFieldPath: stringData.url",
      "          - name: service",
      "",
    ].join("\n"),
  );
  edit(
    "webapp-test.yaml",
    "    - apiVersion: v1\n      kind: Service\n",
    "    - apiVersion: v1\n      kind: Secret\n      metadata:\n        annotations:\n          crossplane.io/composition-resource-name: credentials\n      stringData:\n        password: expected-Password-1\n        url: postgres://app:expected-Password-1@db:5432/shop\n    - apiVersion: v1\n      kind: Service\n",
  );
  // The golden file holds the password an earlier render made, and the connection URL base64-encoded.
  fs.appendFileSync(
    path.join(dir, "xr.golden.yaml"),
    [
      "---",
      "apiVersion: v1",
      "kind: Secret",
      "metadata:",
      "  annotations:",
      "    crossplane.io/composition-resource-name: credentials",
      "  generateName: storefront-",
      "  labels:",
      "    crossplane.io/composite: storefront",
      "  namespace: shop",
      "data:",
      `  url: ${b64(`postgres://app:${OLD}@db:5432/shop`)}`,
      "stringData:",
      `  password: ${OLD}`,
      "",
    ].join("\n"),
  );
  return dir;
}

describe("composition-ci test masks the secrets its tests rendered", () => {
  it("a Secret a function composes, and one only a golden file holds, are masked in every format and in JUnit", async () => {
    const dir = repository();
    const leaks = [GENERATED, OLD, "Xk9q-3", "OLDv-2", b64(`postgres://app:${OLD}@db:5432/shop`).slice(0, 24)];
    for (const format of ["text", "json", "junit", "sarif", "markdown"]) {
      const junit = path.join(dir, `junit-${format}.xml`);
      const { stdout, code } = await runCli(["test", ".", "--no-cache", "--format", format, "--junit", junit], dir);
      expect(code, `${format}: ${stdout}`).toBe(1);
      expect(stdout, format).toContain("masked sha256:");
      expect(stdout, format).toContain("stringData.password");
      for (const text of [stdout, fs.readFileSync(junit, "utf8")]) for (const leak of leaks) expect(text, `${format}: ${leak}`).not.toContain(leak);
      // Masked before it is formatted, the JUnit report stays well-formed: a mask is XML text there.
      expect(() => parseXml(fs.readFileSync(junit, "utf8"))).not.toThrow();
    }
  });

  it("check: the tests' findings are masked as well", async () => {
    const dir = repository();
    const { stdout } = await runCli(["check", ".", "--no-cache", "--format", "json"], dir);
    expect(stdout).toContain("test/failed");
    for (const leak of [GENERATED, OLD, "Xk9q-3"]) expect(stdout, leak).not.toContain(leak);
  });
});
