import { run } from "./action/run.js";

// A request to GitHub that never answered may still hold a socket: the step ends when run() does.
void run().finally(() => process.exit());
