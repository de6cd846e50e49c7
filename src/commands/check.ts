import { validateCommand } from "./validate.js";
import type { CommandIO } from "./io.js";

export const CHECK_HELP = `Usage: composition-ci check [paths...] [options]

The main job: validates every manifest below the paths (the same options as validate).
Rendering and rendered-object checks join it as they land.
`;

export async function checkCommand(argv: string[], io: CommandIO): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout(CHECK_HELP);
    return 0;
  }
  return validateCommand(argv, io);
}
