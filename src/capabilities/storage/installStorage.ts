/**
 * The storage capability on the page (`storage.install`, loaded by dynamic
 * import): its host services (createAppData.ts), the open session's app data
 * and its section of Session settings (AppDataSettings.tsx).
 */
import { STORAGE_ERASED } from "../../wire/capabilities";
import type { CapabilityHost, InstalledCapability } from "../Capability";
import { appDataSettings } from "./AppDataSettings";
import { createAppData } from "./createAppData";

export function installStorage(host: CapabilityHost): InstalledCapability {
  // Erase app data: the realm's `useStored` views show their initial values again, not what was erased.
  const data = createAppData({ onErased: () => host.tellRealm?.(STORAGE_ERASED) });
  return {
    services: data.services,
    open: (opened) => data.open(opened && { sessionId: opened.session.id, store: opened.store }),
    Settings: appDataSettings(data),
  };
}
