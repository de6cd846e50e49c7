import { type CommandIO } from "./commands/io.js";
import { UsageError } from "./core/usage.js";
import { PathNotFound } from "./manifest/discover.js";
import { TOOL_VERSION } from "./version.js";

export const HELP = `composition-ci ${TOOL_VERSION}: validate Crossplane and OAM composition repositories

Usage: composition-ci <command> [options]

Commands:
  check [paths...]      the main job: validate, render every source, validate what it renders
  validate [paths...]   check every manifest against its schema and the semantic rules
  render ...            render XRs through their function pipelines (like crossplane render),
                        and OAM ApplicationConfigurations (--all)
  composition render    the same, by crossplane's v2.5 name (crossplane composition render)
  operation render      render op, by crossplane's v2.5 name (crossplane operation render)
  test [paths...]       run CompositionTests and golden render files (--update rewrites goldens)
  diff --base REF       what a change does to the rendered output and the findings (PR report)
  drift                 today's render against a committed snapshot and/or the cluster
  function run|serve    run or serve a built-in function (RunFunction JSON on stdin, or gRPC)
  functions pull        fill the cache with the repository's function packages (for --offline)
  kpt update-preview    what kpt pkg update would change in a downstream kpt package (a diff)
  help                  this text
  version               the version (also --version, -v)

Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage, configuration or internal error.
Run 'composition-ci <command> --help' for a command's options.
`;

// Each command's module is loaded when it runs (the bundle splits them): a run loads only what its
// command uses, not every command's dependencies (gRPC, the function runtimes, the report writers).
/** Runs one CLI invocation and returns its exit code; never throws. */
export async function main(argv: string[], io: CommandIO): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "check":
        return await (await import("./commands/check.js")).checkCommand(rest, io);
      case "validate":
        return await (await import("./commands/validate.js")).validateCommand(rest, io);
      case "render":
        return await (await import("./commands/render.js")).renderCommand(rest, io);
      // crossplane v2.5's names: `crossplane composition render`, `crossplane operation render`.
      case "composition":
      case "operation":
        if (rest[0] !== "render") throw new UsageError(`${command} has one subcommand: ${command} render (run 'composition-ci ${command} render --help')`);
        return await (await import("./commands/render.js")).renderCommand(command === "operation" ? ["op", ...rest.slice(1)] : rest.slice(1), io);
      case "test":
        return await (await import("./commands/test.js")).testCommand(rest, io);
      case "diff":
        return await (await import("./commands/diff.js")).diffCommand(rest, io);
      case "drift":
        return await (await import("./commands/drift.js")).driftCommand(rest, io);
      case "function": {
        const { functionCommand, readAllStdin } = await import("./commands/function.js");
        return await functionCommand(rest, { ...io, readStdin: io.readStdin ?? readAllStdin });
      }
      case "functions":
        return await (await import("./commands/functions.js")).functionsCommand(rest, io);
      case "kpt":
        return await (await import("./commands/kpt.js")).kptCommand(rest, io);
      case "version":
      case "--version":
      case "-v":
        io.stdout(`${TOOL_VERSION}\n`);
        return 0;
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout(HELP);
        return 0;
      default:
        throw new UsageError(`unknown command "${command}"; run 'composition-ci help'`);
    }
  } catch (err) {
    if (err instanceof UsageError || err instanceof PathNotFound) {
      // An option the command does not know: name where its options are listed.
      const hint = /^Unknown option/.test(err.message) && command ? ` (run 'composition-ci ${command} --help' for its options)` : "";
      io.stderr(`composition-ci: ${err.message}${hint}\n`);
      return 2;
    }
    io.stderr(`composition-ci: internal error: ${(err as Error).stack ?? err}\n`);
    return 2;
  }
}
