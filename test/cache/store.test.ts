import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { emptyConfig } from "../../src/config/config.js";
import { validateRepo } from "../../src/run/validate.js";
import { SchemaEngine } from "../../src/validate/engine.js";
import { FunctionResponses } from "../../src/cache/responses.js";
import { buildId, contentKey, WorkStore } from "../../src/cache/store.js";
import { loadFile, stripBom } from "../../src/manifest/load.js";
import { fromStored, toStored } from "../../src/manifest/stored.js";
import { crd } from "../fixtures/definitions.js";
import { describeShared, runCli, SHARED, tempRepo } from "../helpers.js";

/** The work store (issue 38): what one run keeps, the next reads; never another build's, never half a pack. */

/** A file's bytes as the loader reads them, before any leniency: what a stored load leaves out. */
const asText = (bytes: Buffer) => stripBom(bytes.toString("utf8"));
const temp = () => fs.mkdtempSync(path.join(os.tmpdir(), "cci-store-"));
const packsOf = (cache: string) => fs.readdirSync(path.join(cache, "work", buildId()));

describe("WorkStore", () => {
  it("keeps values across runs, for the same root only", () => {
    const cache = temp();
    const first = WorkStore.open(cache, "/repo/a");
    first.set("k", { nested: [1, -0, Number.NaN, "x"] });
    first.save();
    const again = WorkStore.open(cache, "/repo/a");
    expect(again.get("k")).toEqual({ nested: [1, -0, Number.NaN, "x"] });
    expect(again.has("k")).toBe(true);
    expect(WorkStore.open(cache, "/repo/b").get("k")).toBeUndefined();
  });

  it("a pack of thousands of entries (written in batches, empty entries among them) reads back whole", () => {
    const cache = temp();
    const store = WorkStore.open(cache, "/repo/many");
    for (let i = 0; i < 3000; i++) {
      if (i % 3 === 0) store.mark(`m${i}`);
      else store.set(`k${i}`, { i, text: "x".repeat(i % 50) });
    }
    store.save();
    const again = WorkStore.open(cache, "/repo/many");
    for (let i = 0; i < 3000; i++) {
      if (i % 3 === 0) expect(again.has(`m${i}`)).toBe(true);
      else expect(again.get(`k${i}`)).toEqual({ i, text: "x".repeat(i % 50) });
    }
  });

  it("writes nothing when a run only read what was there", () => {
    const cache = temp();
    const store = WorkStore.open(cache, "/r");
    store.set("k", 1);
    store.save();
    const [pack] = packsOf(cache);
    const file = path.join(cache, "work", buildId(), pack!);
    const before = fs.statSync(file).mtimeMs;
    fs.utimesSync(file, new Date(before - 10_000), new Date(before - 10_000));
    const aged = fs.statSync(file).mtimeMs;
    const reader = WorkStore.open(cache, "/r");
    expect(reader.get("k")).toBe(1);
    reader.save();
    expect(fs.statSync(file).mtimeMs).toBe(aged);
  });

  it("a pack of another build, a corrupt pack and a truncated one are empty stores", () => {
    const cache = temp();
    const store = WorkStore.open(cache, "/r");
    store.set("k", "v");
    store.save();
    const file = path.join(cache, "work", buildId(), packsOf(cache)[0]!);
    const good = fs.readFileSync(file);
    fs.writeFileSync(file, good.subarray(0, good.length - 1));
    expect(WorkStore.open(cache, "/r").get("k")).toBeUndefined();
    fs.writeFileSync(file, Buffer.from("not a pack"));
    expect(WorkStore.open(cache, "/r").get("k")).toBeUndefined();
    fs.writeFileSync(
      file,
      Buffer.from(
        good.toString("latin1").replace(
          buildId(),
          buildId().replace(/.$/, (c) => (c === "0" ? "1" : "0")),
        ),
        "latin1",
      ),
    );
    expect(WorkStore.open(cache, "/r").get("k")).toBeUndefined();
  });

  it("keeps the most recently used entries that fit its size", () => {
    const cache = temp();
    const store = WorkStore.open(cache, "/r", 3000);
    for (let i = 0; i < 10; i++) store.set(`k${i}`, "x".repeat(500));
    store.save();
    const kept = WorkStore.open(cache, "/r", 3000);
    const present = Array.from({ length: 10 }, (_, i) => kept.has(`k${i}`)).filter(Boolean).length;
    expect(present).toBeGreaterThan(2);
    expect(present).toBeLessThan(10);
  });

  it("saves atomically: concurrent writers leave one whole pack and no temporary file", () => {
    const cache = temp();
    const a = WorkStore.open(cache, "/r");
    const b = WorkStore.open(cache, "/r");
    a.set("a", 1);
    b.set("b", 2);
    a.save();
    b.save();
    expect(packsOf(cache)).toHaveLength(1);
    const after = WorkStore.open(cache, "/r");
    expect(after.get("b")).toBe(2);
  });

  it("content keys cannot be forged by moving a separator", () => {
    expect(contentKey("ab", "c")).not.toBe(contentKey("a", "bc"));
  });
});

describe("FunctionResponses", () => {
  const request = (greeting: string) => ({ observed: { composite: { resource: { spec: { greeting } } } } }) as never;
  const response = (n: number) => ({ desired: { resources: { [`r${n}`]: { resource: { n, pad: "x".repeat(400) } } } } }) as never;

  it("answers the same request to the same digest and source, and nothing else", () => {
    const cache = temp();
    const kept = new FunctionResponses(cache);
    const key = kept.key("sha256:a", "", request("hej"));
    kept.set(key, response(1));
    const next = new FunctionResponses(cache);
    expect(next.get(next.key("sha256:a", "", request("hej")))).toEqual(response(1));
    expect(next.get(next.key("sha256:b", "", request("hej")))).toBeUndefined();
    expect(next.get(next.key("sha256:a", "kcl:other-folder", request("hej")))).toBeUndefined();
    expect(next.get(next.key("sha256:a", "", request("hello")))).toBeUndefined();
  });

  it("keeps the most recently used answers within its bound; an unreadable one is no answer; the work store's cleaning leaves them", () => {
    const cache = temp();
    const kept = new FunctionResponses(cache, 1200);
    const keys = [1, 2, 3].map((n) => kept.key("sha256:a", "", request(String(n))));
    const dir = path.join(cache, "work", buildId(), "responses");
    keys.forEach((key, n) => {
      kept.set(key, response(n));
      const old = Date.now() / 1000 - 3600 * (10 - n);
      fs.utimesSync(path.join(dir, key), old, old);
    });
    const later = new FunctionResponses(cache, 1200);
    later.set(later.key("sha256:a", "", request("4")), response(4));
    expect(fs.readdirSync(dir)).toHaveLength(2);
    expect(later.get(keys[0]!)).toBeUndefined();
    expect(later.get(keys[2]!)).toEqual(response(2));
    fs.writeFileSync(path.join(dir, keys[2]!), "not v8");
    expect(later.get(keys[2]!)).toBeUndefined();
    const store = WorkStore.open(cache, "/repo/a");
    store.set("k", 1);
    store.save();
    expect(fs.existsSync(dir)).toBe(true);
  });
});

describe("a loaded file, stored and read back", () => {
  it("is the same load: objects, findings, positions, YAML 1.1 scalars, unread objects", () => {
    const text = [
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {debug: yes, n: 0644}",
      "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Secret\n    metadata: {name: s}",
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b\n",
    ].join("\n---\n");
    const bytes = Buffer.from(text);
    const loaded = loadFile("dir/file.yaml", bytes);
    const stored = structuredClone(toStored(loaded, asText(bytes)));
    expect(stored.source!.text).toBeUndefined(); // the bytes give it back
    const back = fromStored(stored, asText(bytes));
    expect(back.source!.text).toBe(loaded.source!.text);
    expect(back.findings).toEqual(loaded.findings);
    expect(back.unread).toEqual(loaded.unread);
    expect(back.documents).toBe(loaded.documents);
    expect(back.source!.yaml11).toEqual(loaded.source!.yaml11);
    expect(back.source!.yaml11.length).toBeGreaterThan(0);
    expect(back.manifests.map((m) => [m.kind, m.name, m.docIndex, m.pointerPrefix, m.object])).toEqual(
      loaded.manifests.map((m) => [m.kind, m.name, m.docIndex, m.pointerPrefix, m.object]),
    );
    expect(back.manifests[1]!.source).toBe(back.source);
    expect(back.source!.locate(1, "/items/0/metadata/name")).toEqual(loaded.source!.locate(1, "/items/0/metadata/name"));
  });

  it("keeps the text when the loader changed it (a lenient read)", () => {
    const bytes = Buffer.from('\ufeffapiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  d: "first\n  second"\n');
    const loaded = loadFile("a.yaml", bytes);
    const stored = structuredClone(toStored(loaded, asText(bytes)));
    expect(stored.source!.text).toBe(loaded.source!.text);
    expect(fromStored(stored, asText(bytes)).source!.text).toBe(loaded.source!.text);
  });

  it("keeps the parser's events once a position was needed: the next run does not parse the file for it", () => {
    const bytes = Buffer.from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  n: x\n");
    const plain = loadFile("a.yaml", bytes);
    expect(plain.source!.plain).toBe(true);
    expect(fromStored(structuredClone(toStored(plain, asText(bytes))), asText(bytes)).source!.eventsIfParsed).toBeUndefined();
    const at = plain.source!.locate(0, "/data/n");
    const kept = fromStored(structuredClone(toStored(plain, asText(bytes))), asText(bytes)).source!;
    expect(kept.eventsIfParsed).toEqual(plain.source!.eventsIfParsed);
    expect(kept.eventsIfParsed!.length).toBeGreaterThan(0);
    expect(kept.locate(0, "/data/n")).toEqual(at);
    expect(at.line).toBe(6);
  });
});

describe("a schema's own problems and an object's findings, kept by content", () => {
  it("a warm run says them again without compiling the schema or validating the objects", async () => {
    // A pattern RE2 refuses (a look-behind): a problem of the schema itself.
    const widgets = crd({ kind: "Widget", plural: "widgets", spec: '{type: object, properties: {size: {type: string, pattern: "(?<=a)b"}}}' });
    const dir = tempRepo({
      "crd.yaml": widgets,
      "widget.yaml": "apiVersion: example.org/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: ab}\n",
      "wrong.yaml": "apiVersion: example.org/v1\nkind: Widget\nmetadata: {name: v}\nspec:\n  size: 3\n  colour: red\n",
    });
    const cache = temp();
    const check = () => validateRepo({ root: dir, paths: ["."], config: emptyConfig(), cacheDir: cache });
    const problems = vi.spyOn(SchemaEngine.prototype, "problems");
    const validations = vi.spyOn(SchemaEngine.prototype, "validateObject");
    try {
      const cold = await check();
      expect(cold.findings.filter((f) => f.rule === "schema/invalid-definition")).toHaveLength(1);
      expect(cold.findings.filter((f) => f.file === "wrong.yaml").map((f) => [f.rule, f.line])).toEqual([
        ["schema/type", 5],
        ["schema/unknown-field", 6],
      ]);
      expect(problems).toHaveBeenCalled();
      expect(validations).toHaveBeenCalled();
      problems.mockClear();
      validations.mockClear();
      const warm = await check();
      expect(warm.findings).toEqual(cold.findings);
      expect(problems).not.toHaveBeenCalled();
      expect(validations).not.toHaveBeenCalled();
    } finally {
      problems.mockRestore();
      validations.mockRestore();
    }
  });
});

describeShared("the example corpora, checked cold and then warm", () => {
  for (const corpus of ["auto-ready-examples", "go-templating-examples", "oam-runtime-examples", "patch-and-transform-examples"]) {
    it(`${corpus}: the same output byte for byte`, async () => {
      const cache = temp();
      const dir = path.join(SHARED, "corpus", corpus);
      const cold = await runCli(["check", ".", "--format", "json", "--cache-dir", cache], dir);
      expect(packsOf(cache)).toHaveLength(1);
      const warm = await runCli(["check", ".", "--format", "json", "--cache-dir", cache], dir);
      expect(warm.stdout).toBe(cold.stdout);
    });
  }
});
