/**
 * <MountView store sendEvent />: one mount, drawn inside a contained panel.
 *
 * The panel is the wall between a mount and the app:
 * - `contain: layout paint` makes it the containing block of anything
 *   positioned inside (even `position: fixed`, which the sanitizer also
 *   rewrites) and clips all painting to its box; `isolation: isolate` keeps
 *   every z-index inside its own stacking context; `overflow: auto` scrolls.
 *   These are inline (CSSOM, allowed by any CSP) as well as in the kit CSS,
 *   so they hold even before the style sheet exists.
 * - Styles from a mount are only ever scoped under `.lm-mount` (see
 *   sanitizeCss.ts, utilityCss.ts), and `style` props are sanitized.
 */
import {
  Component,
  useCallback,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type CSSProperties,
  type ReactNode,
} from "react";
import { FORM_ERROR_KEY, ROOT_NODE_ID, TEXT_NODE_TYPE, type UiEvent } from "./contract";
import { MountContext, useMount, type MountRenderContext } from "./mountContext";
import type { MountStore } from "./mountStore";
import { mountStyleSheet } from "./mountStyleSheet";
import { PAUSED_ERROR_NAME, PAUSED_NOTICE } from "./mountInbox";
import { NodeView } from "./NodeView";
import { PanelOrigin } from "./PanelOrigin";
import { payloadHasSensitiveValue } from "./sensitiveValues";
import { useDeferredDraw } from "./useDeferredDraw";
import { reportUnknownComponent } from "./drawable";
import { REPORTED_DROP_REASONS, type DropReason } from "./sanitizeProps";

export interface MountViewProps {
  store: MountStore;
  /** A person acted on a node with a handler: forward as a ui-event to the realm. */
  sendEvent(event: UiEvent): void;
  /** Called once per unknown (or refused) component name in this mount. */
  onUnknownComponent?(name: string): void;
  /** Shown as a "Revive" button while the mount is inert (restored from a snapshot). */
  onRevive?(): void;
  className?: string;
}

export const PANEL_STYLE: CSSProperties = Object.freeze({
  contain: "layout paint",
  overflow: "auto",
  position: "relative",
  isolation: "isolate",
});

/** Kept in drawable.ts, which the mount registry uses without loading this view. */
export { reportUnknownComponent };

const WARNING_STYLE: CSSProperties = Object.freeze({ color: "var(--lm-err, #b91c1c)", fontWeight: 600 });

/** A panel not drawn yet (useDeferredDraw) keeps a plausible height so scrolling does not jump much. */
const DEFERRED_PANEL_STYLE: CSSProperties = Object.freeze({ ...PANEL_STYLE, minHeight: "120px" });

const DROP_TEXT: Record<DropReason, string> = {
  "raw-html": "raw HTML is not rendered",
  "string-handler": "event handlers must be functions",
  "unsupported-handler": "this handler is not supported here",
  "unsafe-url": "only http(s)/mailto links and data:/blob: images are allowed",
  "unsafe-style": "this style is not allowed",
  "invalid-value": "invalid value",
  "unknown-prop": "unknown prop",
};

function hash(text: string): string {
  let value = 5381;
  for (let index = 0; index < text.length; index++) value = ((value * 33) ^ text.charCodeAt(index)) >>> 0;
  return value.toString(36);
}

/** Per-mount id prefix: ids inside a mount never clash with the app's or another mount's. */
export function idPrefixFor(mountId: string): string {
  return `lm-${mountId.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 24)}-${hash(mountId)}-`;
}

function isInert(store: MountStore): boolean {
  const meta = store.getMeta();
  return meta.inert || meta.closed;
}

export function MountView({ store, sendEvent, onUnknownComponent, onRevive, className }: MountViewProps): ReactNode {
  const subscribeMeta = useCallback((listener: () => void) => store.subscribeMeta(listener), [store]);
  const meta = useSyncExternalStore(subscribeMeta, store.getMeta, store.getMeta);
  // A paused mount (mountInbox.ts, or the realm's own commit limit) keeps its last tree under a notice.
  const paused = meta.error?.name === PAUSED_ERROR_NAME;
  const inert = meta.inert || meta.closed;
  const panel = useRef<HTMLDivElement>(null);
  // Look-alike prompts (a "Settings" card asking for the key): fields that
  // mask their text get a warning and key-like values wait for the person's
  // consent, both drawn outside the panel, where the mount cannot draw over
  // them.
  const [maskedFields, setMaskedFields] = useState(0);
  const noteMaskedField = useCallback((present: boolean) => setMaskedFields((count) => count + (present ? 1 : -1)), []);
  const [held, setHeld] = useState<UiEvent | null>(null);
  const allowSensitive = useRef(false);
  const { drawn, height: keptHeight } = useDeferredDraw(panel);
  const callbacks = useRef({ sendEvent, onUnknownComponent });
  callbacks.current = { sendEvent, onUnknownComponent };
  const styleSheet = useMemo(() => {
    const sheet = mountStyleSheet();
    sheet.warm();
    return sheet;
  }, []);

  const context = useMemo<MountRenderContext>(
    () => ({
      store,
      idPrefix: idPrefixFor(store.mountId),
      get inert() {
        return isInert(store);
      },
      styleSheet,
      emit(nodeId, handler, payload) {
        if (isInert(store)) return;
        const event = { mountId: store.mountId, nodeId, handler, payload };
        if (!allowSensitive.current && payloadHasSensitiveValue(payload)) {
          setHeld(event);
          return;
        }
        callbacks.current.sendEvent(event);
      },
      noteMaskedField,
      reportUnknown(type, reason) {
        const fresh = reportUnknownComponent(store, type, reason);
        if (fresh) callbacks.current.onUnknownComponent?.(type);
      },
      reportDropped(type, dropped) {
        for (const { prop, reason } of dropped) {
          if (!REPORTED_DROP_REASONS.has(reason)) continue;
          store.report(
            {
              code: "unsafe-prop",
              message: `<${type}> ${prop}: ${DROP_TEXT[reason]}`,
              details: { type, prop, reason },
            },
            `unsafe:${type}:${prop}:${reason}`,
          );
        }
      },
    }),
    [store, styleSheet, noteMaskedField],
  );

  return (
    <>
      {/* The mount's `title` is the panel's heading, on the origin line: its code cannot restyle or cover it. */}
      <PanelOrigin title={meta.title}>
        <span>Made by the model</span>
        {maskedFields > 0 ? (
          <span role="note" style={WARNING_STYLE}>
            This is not Livemark asking: a password field in a generated UI. Never type your API key or a password here.
          </span>
        ) : null}
        {held ? (
          <span role="alert" style={WARNING_STYLE}>
            This looks like your API key. It was not sent to the generated UI.{" "}
            <button
              type="button"
              onClick={() => {
                allowSensitive.current = true;
                callbacks.current.sendEvent(held);
                setHeld(null);
              }}
            >
              Send anyway
            </button>{" "}
            <button type="button" onClick={() => setHeld(null)}>
              Don't send
            </button>
          </span>
        ) : null}
      </PanelOrigin>
      <div
        ref={panel}
        className={className ? `lm-mount ${className}` : "lm-mount"}
        style={
          drawn
            ? PANEL_STYLE
            : keptHeight
              ? { ...DEFERRED_PANEL_STYLE, minHeight: `${Math.round(keptHeight)}px` }
              : DEFERRED_PANEL_STYLE
        }
        data-deferred={drawn ? undefined : ""}
        role="group"
        aria-label={meta.title ?? "Generated UI"}
        data-mount-id={store.mountId}
        data-inert={inert ? "" : undefined}
        data-waiting={meta.waiting ? "" : undefined}
      >
        {inert && onRevive ? (
          <div className="lmk-inert-bar">
            <span>Restored view — not interactive</span>
            <button type="button" className="lmk-button" data-variant="outline" data-size="sm" onClick={onRevive}>
              Revive
            </button>
          </div>
        ) : null}
        <MountContext.Provider value={context}>
          {paused ? (
            <div className="lmk-paused" role="note">
              {PAUSED_NOTICE}
            </div>
          ) : null}
          {meta.error && !paused ? (
            <div className="lmk-render-error" role="alert">
              {meta.error.name}: {meta.error.message}
              {meta.error.component ? ` (in <${meta.error.component}>)` : ""}
            </div>
          ) : drawn ? (
            <RootBoundary store={store}>
              <RootView />
            </RootBoundary>
          ) : null}
          <FormErrorSummary />
        </MountContext.Provider>
      </div>
    </>
  );
}

function RootView(): ReactNode {
  return <NodeView id={ROOT_NODE_ID} />;
}

/**
 * The last line of defence: a render failure inside the catalog (a bug, or
 * props a library chokes on) shows a note instead of unmounting the app.
 * The next change to the mount tries again.
 */
class RootBoundary extends Component<{ store: MountStore; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  private unsubscribe: (() => void) | undefined;
  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }
  override componentDidCatch(error: unknown): void {
    this.props.store.report({
      code: "invalid-op",
      message: `the mount failed to render: ${String(error).slice(0, 300)}`,
    });
    this.unsubscribe?.();
    this.unsubscribe = this.props.store.subscribeSubtree(ROOT_NODE_ID, () => {
      this.unsubscribe?.();
      this.unsubscribe = undefined;
      this.setState({ failed: false });
    });
  }
  override componentWillUnmount(): void {
    this.unsubscribe?.();
  }
  override render(): ReactNode {
    if (this.state.failed)
      return (
        <div className="lmk-render-error" role="alert">
          This view failed to render.
        </div>
      );
    return this.props.children;
  }
}

/** Errors for the whole form, and for names no field in the mount carries. */
function FormErrorSummary(): ReactNode {
  const { store } = useMount();
  const subscribe = useCallback((listener: () => void) => store.subscribeMeta(listener), [store]);
  const read = () => store.getMeta().formErrors;
  const errors = useSyncExternalStore(subscribe, read, read);
  const keys = Object.keys(errors);
  if (keys.length === 0) return null;
  const names = fieldNames(store);
  const loose = keys.filter((key) => key === FORM_ERROR_KEY || !names.has(key));
  if (loose.length === 0) return null;
  return (
    <div className="lmk-form-errors" role="alert">
      {loose.map((key) => (
        <div key={key}>{key === FORM_ERROR_KEY ? errors[key] : `${key}: ${errors[key]}`}</div>
      ))}
    </div>
  );
}

function fieldNames(store: MountStore): Set<string> {
  const names = new Set<string>();
  const stack = [...(store.getNode(ROOT_NODE_ID)?.children ?? [])];
  while (stack.length > 0) {
    const node = store.getNode(stack.pop()!);
    if (!node || node.type === TEXT_NODE_TYPE) continue;
    if (typeof node.props.name === "string" && node.live !== undefined) names.add(node.props.name);
    stack.push(...node.children);
  }
  return names;
}
