/**
 * The names model code sees besides the platform's (DESIGN.md §2). The
 * executor binds these as realm globals that top-level declarations cannot
 * shadow by accident.
 */
import type { HostRequests } from "./createHostRequests";
import { createModelHabits } from "./createModelHabits";
import { createCapabilityGlobals } from "./capabilities";
import type { StorageHooks } from "./capabilities/storage";
import type { MountCallers } from "./capabilities/ai";
import { createRealmTools, type RealmTools } from "./capabilities/tools";
import { createSleep } from "./createSleep";
import type { RequestHandler } from "../../../src/wire/createRequests";

/**
 * `extra`: further globals, e.g. the UI runtime's (React, mount, Data, …); ours win on a clash.
 * `requests`: the realm's requests to the host once connected; capabilities (`fetch`) go through them.
 * `tools`: the `tools` global (its list is set by the host's TOOLS call; empty until then).
 * `setTimer`: the timer `sleep` waits on (default the platform's setTimeout).
 * `mounts`: which mount is calling (the UI runtime's), for the calls a paused mount makes.
 */
export function createRealmGlobals(
  extra: Record<string, unknown> = {},
  requests: () => HostRequests | undefined = () => undefined,
  tools: RealmTools = createRealmTools(requests),
  setTimer?: typeof setTimeout,
  mounts?: MountCallers,
  /** Filled with the methods the host may call on the capabilities (`storage.erased`), for serveRealm. */
  hostMethods?: Map<string, RequestHandler>,
): Record<string, unknown> {
  const globals: Record<string, unknown> = {
    ...extra,
    sleep: createSleep(setTimer),
    // fetch, download, tools, attachment, storage, ai: each a client of a host service (src/capabilities).
    ...createCapabilityGlobals(
      requests,
      tools,
      () => (typeof extra.useState === "function" ? (extra as unknown as StorageHooks) : undefined),
      mounts,
      hostMethods,
    ),
  };
  // Imports, default exports, ReactDOM, and teaching errors for the browser
  // APIs models reach for (document, alert, localStorage, require).
  return Object.assign(globals, createModelHabits(globals).globals);
}
