import { createContext, lazy, Suspense, useCallback, useContext, useSyncExternalStore } from "react";
import type { MountRegistry, UiEvent } from "../render";

/**
 * The view of mounts (MountView, the catalog, the kit, the sanitizers) is its
 * own chunk: the first screen has no mount, so it is not part of the
 * JavaScript the page needs before the composer works. main.tsx requests it
 * once the page is idle; a mount drawn before that waits for it.
 */
export const loadMountView = () => import("../render/MountView");
const MountView = lazy(() => loadMountView().then((module) => ({ default: module.MountView })));

/**
 * Mounted UIs in the timeline. The registry holds each mount's live (or
 * restored, inert) tree; a reply only names the mounts it opened.
 */
export interface MountsContextValue {
  registry: MountRegistry;
  sendEvent(event: UiEvent): void;
  revive?(): void;
  onUnknownComponent?(name: string): void;
  /** Resolves once the mount messages received so far are applied (the inbox applies them in time slices). */
  mountsApplied?(): Promise<void>;
  /** Saved snapshots (src/session/mountSnapshots.ts): a mount still being restored, the note of a cut one. */
  snapshots?: {
    isRestoring(mountId: string): boolean;
    note(mountId: string): string | undefined;
    subscribe(listener: () => void): () => void;
  };
}

const noSubscription = () => () => undefined;

export const MountsContext = createContext<MountsContextValue | undefined>(undefined);

export function MountSlot({ mountId }: { mountId: string }) {
  const context = useContext(MountsContext);
  const subscribe = useCallback(
    (listener: () => void) => context?.registry.subscribe(listener) ?? (() => undefined),
    [context],
  );
  const store = useSyncExternalStore(subscribe, () => context?.registry.get(mountId));
  const snapshots = context?.snapshots;
  const restoring = useSyncExternalStore(
    snapshots?.subscribe ?? noSubscription,
    () => snapshots?.isRestoring(mountId) ?? false,
  );
  const note = useSyncExternalStore(snapshots?.subscribe ?? noSubscription, () => snapshots?.note(mountId));
  if (!context) return null;
  if (!store && restoring) {
    return (
      <p className="lm-notice" aria-label="Restoring mounted UI" aria-busy="true">
        Restoring this UI…
      </p>
    );
  }
  if (!store) {
    return (
      <p className="lm-notice lm-notice--warn" aria-label="Mounted UI unavailable">
        This UI is not live any more. Revive the session to bring it back.
      </p>
    );
  }
  return (
    <div className="lm-mount" aria-label="Mounted UI" data-mount-id={mountId}>
      <Suspense fallback={null}>
        <MountView
          store={store}
          sendEvent={context.sendEvent}
          onRevive={context.revive}
          onUnknownComponent={context.onUnknownComponent}
        />
      </Suspense>
      {note && (
        <p className="lm-notice lm-notice--warn" aria-label="Saved UI was cut">
          {note}
        </p>
      )}
    </div>
  );
}
