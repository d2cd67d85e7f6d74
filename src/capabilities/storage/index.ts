/**
 * App data that lasts (issue 28 §1): `storage` and `useStored` in the realm
 * keep JSON values for the session, persisted by the host in IndexedDB
 * (src/store/appData.ts) and checked again on the host (createAppData.ts).
 * No ask: the data stays in this browser, in this session; the person sees
 * it and erases it in Session settings → **App data** (AppDataSettings.tsx).
 * Its lines in the system prompt: prompt.ts. Realm half:
 * workers/realm/runtime/capabilities/storage.ts.
 */
import { STORAGE_ERASED } from "../../wire/capabilities";
import type { Capability } from "../Capability";
import { appDataSettings } from "./AppDataSettings";
import { createAppData } from "./createAppData";
import { storagePrompt } from "./prompt";

export const storage: Capability = {
  name: "storage",
  realmGlobals: ["storage", "useStored"],
  install(host) {
    // Erase app data: the realm's `useStored` views show their initial values again, not what was erased.
    const data = createAppData({ onErased: () => host.tellRealm?.(STORAGE_ERASED) });
    return {
      services: data.services,
      open: (opened) => data.open(opened && { sessionId: opened.session.id, store: opened.store }),
      Settings: appDataSettings(data),
    };
  },
  prompt: storagePrompt,
};
