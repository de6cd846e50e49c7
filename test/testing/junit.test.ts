import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers.js";
import { appRepo, compositionTest } from "./fixture.js";
import { childrenNamed, parseXml, type XmlElement } from "./xml.js";

/** JUnit XML as CI test reporters read it: parsed here, with its suites, cases and failures checked. */

const num = (el: XmlElement, attribute: string) => Number(el.attributes[attribute]);

describe("the JUnit report", () => {
  it("the reader these tests use is strict", () => {
    expect(() => parseXml("<a><b></a>")).toThrow(/closes <b>/);
    expect(() => parseXml('<a x="1 & 2"/>')).toThrow(/bare `&`/);
    expect(() => parseXml("<a>&nbsp;</a>")).toThrow(/undefined entity/);
    expect(() => parseXml('<a x="1" x="2"/>')).toThrow(/twice/);
    expect(parseXml('<?xml version="1.0"?>\n<a k="&quot;&lt;&#10;">t&amp;<b/></a>\n')).toEqual({
      name: "a",
      attributes: { k: '"<\n' },
      children: [{ name: "b", attributes: {}, children: [], text: "" }],
      text: "t&",
    });
  });

  it("one testsuite per test file, one testcase per test, failures and errors with the differences, counts that add up", async () => {
    const dir = appRepo({
      // Passes, and fails on a value with characters XML must escape.
      "tests/a-test.yaml": [
        compositionTest("passes", "  - {apiVersion: v1, kind: ConfigMap, data: {tier: web}}\n"),
        compositionTest("fails", '  - {apiVersion: v1, kind: ConfigMap, data: {tier: "<web & \\"api\\">"}}\n'),
      ].join("---\n"),
      // Cannot run: the Composition it names does not exist.
      "tests/b-test.yaml": compositionTest("errs", "  - {apiVersion: v1, kind: ConfigMap}\n").replace(
        "compositionPath: apis/composition.yaml",
        "compositionPath: apis/none.yaml",
      ),
      // Cannot be read.
      "tests/c-test.yaml": "apiVersion: meta.dev.upbound.io/v1alpha1\nkind: CompositionTest\nmetadata: {name: broken\n",
    });
    const golden = await runCli(["render", "examples/app.yaml", "apis/composition.yaml", "apis/functions.yaml", "--xrd", "apis/xrd.yaml"], dir);
    fs.writeFileSync(path.join(dir, "examples/app.golden.yaml"), golden.stdout.replace("replicas: 3", "replicas: 2"));

    const r = await runCli(["test", "--format", "junit", "--no-cache", "--junit", "out/junit.xml"], dir);
    expect(r.code).toBe(2); // an unreadable test file
    expect(fs.readFileSync(path.join(dir, "out/junit.xml"), "utf8")).toBe(r.stdout);
    const root = parseXml(r.stdout);
    expect(root.name).toBe("testsuites");
    const suites = childrenNamed(root, "testsuite");
    expect(suites.map((s) => s.attributes.name)).toEqual(["tests/c-test.yaml", "examples/app.golden.yaml", "tests/a-test.yaml", "tests/b-test.yaml"]);
    const cases = suites.flatMap((s) => childrenNamed(s, "testcase"));
    expect(cases.map((c) => [c.attributes.classname, c.attributes.name])).toEqual([
      ["tests/c-test.yaml", "tests/c-test.yaml:4"],
      ["examples/app.golden.yaml", "golden examples/app.golden.yaml"],
      ["tests/a-test.yaml", "CompositionTest passes"],
      ["tests/a-test.yaml", "CompositionTest fails"],
      ["tests/b-test.yaml", "CompositionTest errs"],
    ]);
    // The counts of every suite and of the whole add up to what the cases hold.
    for (const el of [root, ...suites]) {
      const mine = el === root ? cases : childrenNamed(el, "testcase");
      expect(num(el, "tests")).toBe(mine.length);
      expect(num(el, "failures")).toBe(mine.filter((c) => childrenNamed(c, "failure").length).length);
      expect(num(el, "errors")).toBe(mine.filter((c) => childrenNamed(c, "error").length).length);
      expect(num(el, "skipped")).toBe(mine.filter((c) => childrenNamed(c, "skipped").length).length);
      expect(Number.isFinite(num(el, "time"))).toBe(true);
    }
    expect([num(root, "tests"), num(root, "failures"), num(root, "errors")]).toEqual([5, 2, 2]);

    const [unreadable, goldenCase, passes, fails, errs] = cases as [XmlElement, XmlElement, XmlElement, XmlElement, XmlElement];
    expect(passes.children).toEqual([]);
    const failure = childrenNamed(fails, "failure")[0]!;
    expect(failure.attributes.type).toBe("test/assertion");
    expect(failure.attributes.message).toBe("v1 ConfigMap shop-* (composition resource config) (tests/a-test.yaml:21)");
    expect(failure.text).toContain('  data.tier: want "<web & \\"api\\">", got "web"');
    const goldenFailure = childrenNamed(goldenCase, "failure")[0]!;
    expect(goldenFailure.attributes.type).toBe("test/golden");
    expect(goldenFailure.text).toMatch(
      /apps\/v1 Deployment shop-[0-9a-f]{12} \(composition resource deployment\) \(examples\/app\.golden\.yaml:\d+\)\n {2}spec\.replicas: want 2, got 3/,
    );
    expect(childrenNamed(errs, "error")[0]!.text).toContain("apis/none.yaml: no such file or directory");
    expect(childrenNamed(unreadable, "error")[0]!.attributes.message).toMatch(/^cannot read the test file: /);
    expect(unreadable.attributes.line).toBe("4"); // where the parser finds the unclosed mapping
  });
});
