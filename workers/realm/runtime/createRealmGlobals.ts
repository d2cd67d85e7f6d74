/**
 * The names model code sees besides the platform's (DESIGN.md §2). The
 * executor binds these as realm globals that top-level declarations cannot
 * shadow by accident.
 */
import type { HostRequests } from "./createHostRequests";
import { createModelHabits } from "./createModelHabits";
import { createRealmFetch } from "./capabilities/network";
import { createAttachment, createDownload } from "./capabilities/files";
import { createRealmTools, type RealmTools } from "./capabilities/tools";
import { createSleep } from "./createSleep";

/**
 * `extra`: further globals, e.g. the UI runtime's (React, mount, Data, …); ours win on a clash.
 * `requests`: the realm's requests to the host once connected; capabilities (`fetch`) go through them.
 * `tools`: the `tools` global (its list is set by the host's TOOLS message; empty until then).
 */
export function createRealmGlobals(
  extra: Record<string, unknown> = {},
  requests: () => HostRequests | undefined = () => undefined,
  tools: RealmTools = createRealmTools(requests),
): Record<string, unknown> {
  const globals: Record<string, unknown> = {
    ...extra,
    sleep: createSleep(),
    // The host-brokered network capability (DESIGN.md §4).
    fetch: createRealmFetch(requests),
    // Files out: offered in the timeline, saved only on the person's click.
    download: createDownload(requests),
    // The person's MCP tools, brokered by the host like the network.
    tools: tools.tools,
    // Files the person attached to a message (by name), read like chosen files.
    attachment: createAttachment(requests),
  };
  // Imports, default exports, ReactDOM, and teaching errors for the browser
  // APIs models reach for (document, alert, localStorage, require).
  return Object.assign(globals, createModelHabits(globals).globals);
}
