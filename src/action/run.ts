import * as core from "@actions/core";
import { installKubeconform } from "../validate/kubeconform-install.js";
import { driftMode } from "./drift.js";
import { readInputs } from "./inputs.js";
import { prMode } from "./pr.js";
import { testMode } from "./test.js";
import { validateMode } from "./validate.js";
import { TOOL_VERSION } from "../version.js";

/**
 * The GitHub Action: reads its inputs and runs the mode's module (`pr`: the diff of a pull
 * request; `validate`: check the tree; `drift`: the nightly drift issue; `test`: the repository's CompositionTests and golden files). Each runs the same code
 * as the CLI and reports through GitHub.
 */
export async function run(): Promise<void> {
  try {
    const inputs = readInputs();
    // The log's banner: which tool, which version, which mode; then each phase in a group, then the verdict.
    core.info(`composition-ci ${TOOL_VERSION} · mode ${inputs.mode} · paths ${inputs.paths.join(", ")}`);
    const engine = inputs.kubeconform
      ? await core.group("kubeconform", async () => ({ engine: "both" as const, kubeconformPath: await installKubeconform() }))
      : {};
    await core.group(`composition-ci ${inputs.mode}`, async () => {
      if (inputs.mode === "validate") await validateMode(inputs, engine);
      else if (inputs.mode === "drift") await driftMode(inputs);
      else if (inputs.mode === "test") await testMode(inputs, engine);
      else await prMode(inputs, engine);
    });
    const verdict = process.exitCode === 1 ? "fails" : "passes";
    core.info(`composition-ci ${inputs.mode}: ${verdict} (the job summary has the report)`);
  } catch (err) {
    core.setFailed(err instanceof Error ? err.message : String(err));
  }
}
