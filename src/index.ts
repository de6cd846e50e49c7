import { run } from "./action.js";

void run();
