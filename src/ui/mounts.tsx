import { createContext, useCallback, useContext, useSyncExternalStore } from "react";
import { MountView, type MountRegistry, type UiEvent } from "../render";

/**
 * Mounted UIs in the timeline. The registry holds each mount's live (or
 * restored, inert) tree; a reply only names the mounts it opened.
 */
export interface MountsContextValue {
  registry: MountRegistry;
  sendEvent(event: UiEvent): void;
  revive?(): void;
  onUnknownComponent?(name: string): void;
  /** Mount messages received but not yet applied (the inbox applies them in time slices). */
  pendingMounts?(): number;
}

export const MountsContext = createContext<MountsContextValue | undefined>(undefined);

export function MountSlot({ mountId }: { mountId: string }) {
  const context = useContext(MountsContext);
  const subscribe = useCallback((listener: () => void) => context?.registry.subscribe(listener) ?? (() => undefined), [context]);
  const store = useSyncExternalStore(subscribe, () => context?.registry.get(mountId));
  if (!context) return null;
  if (!store) {
    return (
      <p className="lm-notice lm-notice--warn" aria-label="Mounted UI unavailable">
        This UI is not live any more. Revive the session to bring it back.
      </p>
    );
  }
  return (
    <div className="lm-mount" aria-label="Mounted UI" data-mount-id={mountId}>
      <MountView store={store} sendEvent={context.sendEvent} onRevive={context.revive} onUnknownComponent={context.onUnknownComponent} />
    </div>
  );
}
