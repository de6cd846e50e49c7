import { describe, expect, it } from "vitest";
import { Manifest } from "../../src/manifest/manifest.js";
import { embeddedFunctionName, findEmbeddedFunction, projectFunctionLanguage, projectsOf, rewriteImage, toDnsLabel } from "../../src/project/index.js";
import { tempRepo } from "../helpers.js";

/** Issue 36: projects read as the CLI reads them (crossplane/cli apis/dev/v1alpha1, internal/project). */

const manifest = (object: Record<string, unknown>, file: string) => new Manifest(object as never, { file } as never, 0);

describe("toDnsLabel, as crossplane-runtime's xpkg.ToDNSLabel", () => {
  // crossplane-runtime pkg/xpkg/name_test.go TestToDNSLabel.
  it.each([
    ["-hi/my.name/is-", "hi-my-name-is"],
    ["a".repeat(64), "a".repeat(63)],
    [`${"a".repeat(60)}----`, "a".repeat(60)],
    ["upbound/configuration-app_xapp", "upbound-configuration-appxapp"],
    ["Acme/Platform_compose", "cme-latformcompose"],
  ])("%s → %s", (input, want) => expect(toDnsLabel(input)).toBe(want));
});

describe("projects and their embedded functions", () => {
  const upbound = manifest(
    { apiVersion: "meta.dev.upbound.io/v1alpha1", kind: "Project", metadata: { name: "p" }, spec: { repository: "xpkg.upbound.io/upbound/configuration-app" } },
    "upbound.yaml",
  );
  const crossplane = manifest(
    {
      apiVersion: "dev.crossplane.io/v1alpha1",
      kind: "Project",
      metadata: { name: "p" },
      spec: {
        repository: "ghcr.io/acme/platform",
        paths: { functions: "fns/" },
        functions: [
          { source: "Directory", directory: { name: "net_work" } },
          { source: "Tarball", tarball: { name: "prebuilt", pathPrefix: "build/prebuilt" } },
        ],
      },
    },
    "platform/crossplane-project.yaml",
  );

  it("reads paths with the CLI's defaults, and names functions after the repository path made a DNS label", () => {
    const [u, c] = projectsOf([upbound, crossplane]);
    expect(u!.paths).toEqual({ apis: "apis", functions: "functions", examples: "examples", tests: "tests", operations: "operations", schemas: "schemas" });
    expect(c!.paths.functions).toBe("fns");
    expect(embeddedFunctionName(u!, "xapp")).toBe("upbound-configuration-appxapp");
    expect(embeddedFunctionName(c!, "net_work")).toBe("acme-platformnetwork");
  });

  it("finds declared functions under the project's functions path, and a folder by its exact name when the folders can be listed", () => {
    const projects = projectsOf([upbound, crossplane]);
    expect(findEmbeddedFunction(projects, "acme-platformnetwork")).toMatchObject({ name: "net_work", dir: "platform/fns/net_work/", source: "Directory" });
    expect(findEmbeddedFunction(projects, "acme-platformprebuilt")).toMatchObject({ source: "Tarball" });
    expect(findEmbeddedFunction(projects, "acme-platformother")).toBeUndefined();
    const root = tempRepo({ "functions/x_app/main.k": "items = []\n" });
    expect(findEmbeddedFunction(projects, "upbound-configuration-appxapp", root)).toMatchObject({ name: "x_app", dir: "functions/x_app/" });
    // Without the folders, the prefix still says which project's function it is.
    expect(findEmbeddedFunction(projects, "upbound-configuration-appxapp")).toMatchObject({ name: "xapp" });
  });

  it("rewrites base images as ImageConfigs do: the longest matching prefix of the best config", () => {
    const rewrites = [
      { prefixes: ["xpkg.crossplane.io/"], rewrite: "mirror.example/all/" },
      { prefixes: ["xpkg.crossplane.io/crossplane-contrib/", "xpkg.crossplane.io/crossplane-contrib/function-"], rewrite: "mirror.example/fn-" },
    ];
    expect(rewriteImage("xpkg.crossplane.io/crossplane-contrib/function-kcl:v0.12.1", rewrites)).toBe("mirror.example/fn-kcl:v0.12.1");
    expect(rewriteImage("xpkg.crossplane.io/other/thing:v1", rewrites)).toBe("mirror.example/all/other/thing:v1");
    expect(rewriteImage("ghcr.io/x/y:v1", rewrites)).toBe("ghcr.io/x/y:v1");
  });
});

describe("the builder a folder gets, in the CLI's order", () => {
  it.each([
    [{ "kcl.mod": "", "main.k": "" }, "kcl"],
    [{ "main.k": "" }, "kcl"],
    [{ "pyproject.toml": "", "function/fn.py": "" }, "python"],
    [{ "go.mod": "module x\n", "fn.go": "" }, "go"],
    [{ "resource1.yaml.gotmpl": "", "sub/resource2.yaml.tmpl": "" }, "go-templating"],
    [{ "resource1.yaml.gotmpl": "", "README.md": "" }, undefined],
    [{ "kcl.mod": "", "go.mod": "" }, "kcl"],
  ])("%j → %s", (files, want) => expect(projectFunctionLanguage(tempRepo(files as Record<string, string>))).toBe(want));
});
