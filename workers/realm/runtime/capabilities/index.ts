/**
 * The realm halves of the host's capabilities (src/capabilities/README.md):
 * the globals model code calls, each a thin client of its host service.
 * One entry per capability; `realmGlobals` in its host module names them
 * (test/capabilityModules.test.ts checks both lists agree).
 */
import type { HostRequests } from "../createHostRequests";
import type { RequestHandler } from "../../../../src/wire/createRequests";
import { STORAGE_ERASED } from "../../../../src/wire/capabilities";
import { createRealmAi, type MountCallers } from "./ai";
import { createAttachment, createDownload } from "./files";
import { createRealmFetch } from "./network";
import { createRealmStorage, type StorageHooks } from "./storage";
import type { RealmTools } from "./tools";

export function createCapabilityGlobals(
  requests: () => HostRequests | undefined,
  tools: RealmTools,
  /** The UI's hooks (`useStored` is made of them); none outside a realm with UI. */
  hooks: () => StorageHooks | undefined = () => undefined,
  /** Which mount is calling (the UI runtime's), for the model calls a paused mount makes. */
  mounts?: MountCallers,
  /** Filled with the methods the host may call on these capabilities (served by serveRealm). */
  hostMethods?: Map<string, RequestHandler>,
): Record<string, unknown> {
  const stored = createRealmStorage(requests, hooks);
  hostMethods?.set(STORAGE_ERASED, () => {
    stored.erased();
    return null;
  });
  return {
    // network: the host-brokered `fetch` (DESIGN.md §4).
    fetch: createRealmFetch(requests),
    // files: files out, offered in the timeline, saved only on the person's click.
    download: createDownload(requests),
    // tools: the person's MCP tools, brokered by the host like the network.
    tools: tools.tools,
    // files: files the person attached to a message (by name), read like chosen files.
    attachment: createAttachment(requests),
    // storage: app data kept for the session by the host; `useStored` is its React hook.
    storage: stored.storage,
    useStored: stored.useStored,
    // ai: model calls from code and UIs, asked and performed by the host with the session's model.
    ai: createRealmAi(requests, mounts),
  };
}
