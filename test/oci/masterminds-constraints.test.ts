import { describe, expect, it } from "vitest";
import { highestSatisfying, parseConstraint } from "../../src/packages/resolve.js";

/**
 * Package version constraints resolve as Crossplane's package manager resolves them, with
 * Masterminds/semver v3 (issue 35): not as npm's semver, which differs on `!=` and on
 * prereleases.
 */
const TAGS = ["v1.1.0", "v1.2.3", "v1.3.0-rc.1", "v1.3.0", "v1.4.0", "v2.0.0", "latest", "main"];
const resolve = (c: string) => highestSatisfying(TAGS, parseConstraint(c)!);

describe("constraints as Masterminds/semver v3 reads them", () => {
  it("ranges, partial versions and alternatives", () => {
    expect(resolve(">=v1.0.0, <v2.0.0")).toBe("v1.4.0");
    expect(resolve(">= v1.0.0 < v2.0.0")).toBe("v1.4.0");
    expect(resolve("~v1.3")).toBe("v1.3.0");
    expect(resolve("^v1.2")).toBe("v1.4.0");
    expect(resolve("v1")).toBe("v1.4.0");
    expect(resolve("<v1.2.0 || >=v2.0.0")).toBe("v2.0.0");
  });

  it("!= excludes one version only (npm's semver reads `!=v1.4.0` as no range at all)", () => {
    expect(resolve(">=v1.0.0, !=v1.4.0, <v2.0.0")).toBe("v1.3.0");
  });

  it("a prerelease matches only a constraint that names one (`>v1.3.0-0`)", () => {
    expect(highestSatisfying(["v1.3.0-rc.1", "v1.2.0"], parseConstraint(">=v1.2.0")!)).toBe("v1.2.0");
    expect(highestSatisfying(["v1.3.0-rc.1", "v1.2.0"], parseConstraint(">v1.3.0-0")!)).toBe("v1.3.0-rc.1");
  });

  it("what is no constraint stays a tag", () => {
    expect(parseConstraint("main")).toBeUndefined();
  });
});
