import type { Finding } from "../core/finding.js";
import type { JsonObject } from "../core/json.js";
import type { Manifest } from "../manifest/manifest.js";
import { findingAt } from "../validate/findings.js";
import { pipelineFunctions } from "./kptfile.js";
import { builtinFor, repositoryOf, resolveImage, tagOf } from "./runtime.js";

/**
 * A Kptfile step whose catalog function a change moves to another tag while composition-ci runs
 * the function built in: the built-in follows only the release differences it knows, so the
 * rendered diff shows what the rest of the change does, not what the new release changes. Said on
 * the step, never passed over as "no rendered object changed". Steps are paired by the function's
 * repository within the Kptfile, when it runs once on each side.
 */
export function kptBuiltinVersionChanges(base: readonly Manifest[], head: readonly Manifest[]): Finding[] {
  const before = kptfiles(base);
  const out: Finding[] = [];
  for (const [file, kptfile] of kptfiles(head)) {
    const was = before.get(file);
    if (!was) continue;
    const [old, now] = [builtinSteps(was), builtinSteps(kptfile)];
    for (const [repository, steps] of now) {
      const previous = old.get(repository);
      if (steps.length !== 1 || previous?.length !== 1) continue;
      const [step, from] = [steps[0]!, previous[0]!];
      if (from.image === step.image) continue;
      out.push(
        findingAt(
          kptfile,
          `${step.pointer}/image`,
          "render/builtin-version",
          "warning",
          `${step.name} moves from ${tagOf(from.image) ?? from.image} to ${tagOf(step.image) ?? step.image}, and composition-ci runs it with its built-in model of the function: the rendered diff of this package shows what the rest of the change does, not what the new release changes`,
        ),
      );
    }
  }
  return out;
}

function kptfiles(manifests: readonly Manifest[]): Map<string, Manifest> {
  return new Map(manifests.filter((m) => m.kind === "Kptfile" && m.group === "kpt.dev").map((m) => [m.file, m]));
}

/** The Kptfile's steps that run built in, by the function's repository. */
function builtinSteps(kptfile: Manifest): Map<string, { name: string; image: string; pointer: string }[]> {
  const out = new Map<string, { name: string; image: string; pointer: string }[]>();
  for (const step of pipelineFunctions(kptfile.object as JsonObject)) {
    const image = typeof step.spec.image === "string" ? step.spec.image : undefined;
    const builtin = image === undefined ? undefined : builtinFor(image);
    if (!image || !builtin) continue;
    const resolved = resolveImage(image);
    const repository = repositoryOf(resolved);
    out.set(repository, [...(out.get(repository) ?? []), { name: builtin.name, image: resolved, pointer: step.pointer }]);
  }
  return out;
}
