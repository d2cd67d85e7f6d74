/**
 * App data that lasts (issue 28 §1): `storage` and `useStored` in the realm
 * keep JSON values for the session, persisted by the host in IndexedDB
 * (src/store/appData.ts) and checked again on the host (createAppData.ts).
 * No ask: the data stays in this browser, in this session; the person sees
 * it and erases it in Session settings → **App data** (AppDataSettings.tsx),
 * both installed by installStorage.ts, loaded by dynamic import.
 * Its lines in the system prompt: prompt.ts. Realm half:
 * workers/realm/runtime/capabilities/storage.ts.
 */
import { STORAGE_DELETE, STORAGE_GET, STORAGE_KEYS, STORAGE_SET } from "../../wire/capabilities";
import type { Capability } from "../Capability";
import { installLazily } from "../installLazily";
import { storagePrompt } from "./prompt";

export const storage: Capability = {
  name: "storage",
  realmGlobals: ["storage", "useStored"],
  // Its services and its Settings section load by dynamic import (installLazily.ts, installStorage.ts).
  install: (host) =>
    installLazily(host, { services: [STORAGE_GET, STORAGE_KEYS, STORAGE_SET, STORAGE_DELETE], settings: true }, () =>
      import("./installStorage").then((module) => module.installStorage),
    ),
  prompt: storagePrompt,
};
