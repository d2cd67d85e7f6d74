/**
 * The page's entry module. It starts the sandbox realm first
 * (src/sandbox/earlyRealm.ts), then loads the app (src/main.tsx): the
 * realm's bundle and sandbox page load while the browser is still fetching
 * and compiling the app, instead of after it. Kept tiny: everything it
 * imports statically runs before the app's code is even requested.
 */
import { startEarlyRealm } from "./sandbox/earlyRealm";

startEarlyRealm();
void import("./main");
