import { GoError, T } from "../../go/values.js";
import { fn } from "./cast.js";

/** getHostByName looks a name up in DNS upstream; a render here has no network, so it says so. */
export const networkFuncs = {
  getHostByName: fn([T.string], T.string, ([name]) => {
    throw new GoError(`getHostByName ${JSON.stringify(name)}: DNS lookups are not available when rendering locally`);
  }),
};
