/**
 * The names model code sees besides the platform's (DESIGN.md §2). The
 * executor binds these as realm globals that top-level declarations cannot
 * shadow by accident.
 */
import { createFetchStub } from "./fetchStub";
import { createSleep } from "./sleep";

export function createRealmGlobals(): Record<string, unknown> {
  return {
    sleep: createSleep(),
    // The host-brokered network capability (DESIGN.md §4) replaces this stub.
    fetch: createFetchStub(),
    // React, the hooks, mount, Data, StreamedData, Slot, z and the component
    // kit are added here by the runtime/UI work: spread their record in, e.g.
    //   ...createUiGlobals({ send }),
  };
}
