import { main } from "./main.js";

// A reader that stops reading (`composition-ci render --all | head`) ends the run quietly: the
// rest of the output has nowhere to go, and a stack trace about it would only be noise.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    process.exit(process.exitCode ?? 0);
  });
}

const code = await main(process.argv.slice(2), {
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: Boolean(process.stdout.isTTY),
});
process.exitCode = code;
