/**
 * The page's entry module. It starts the sandbox realm first
 * (src/sandbox/earlyRealm.ts), then loads the app (src/main.tsx): the
 * realm's bundle and sandbox page load while the browser is still fetching
 * and compiling the app, instead of after it. Kept tiny: everything it
 * imports statically must arrive before it runs.
 *
 * Then the chosen theme is applied (src/ui/theme.ts): the page's first
 * localStorage read is a synchronous round trip to the browser process
 * (tens of milliseconds on a busy machine), made here while the app's code
 * is still arriving rather than in the app's own start-up, and the app's
 * settings read after it finds the storage loaded.
 */
import { startEarlyRealm } from "./sandbox/earlyRealm";
import { applyTheme, loadTheme } from "./ui/theme";

// zod (in the AI SDK, the MCP SDK and the export schema, all loaded later) probes once whether it may compile
// with `new Function`; under the app's CSP, which has no 'unsafe-eval', the caught probe is still reported as a
// violation. Set before any zod module runs: zod reads its config from this global (validation is the same).
(globalThis as { __zod_globalConfig?: { jitless?: boolean } }).__zod_globalConfig = { jitless: true };

startEarlyRealm();
void import("./main");
applyTheme(loadTheme());
