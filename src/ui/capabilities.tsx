/**
 * What the person sees of capabilities (DESIGN.md §4): the asks, with
 * exactly **Allow once**, **Always allow this host** and **Deny**, in a fixed
 * area above the composer (`PendingAsks`), and a record of each in the
 * timeline where the call was made; offered downloads with a **Save**
 * button; and the **Session settings** dialog (each capability's own
 * section, **Strict mode**, the audit list).
 */
import {
  createContext,
  useContext,
  useEffect,
  useLayoutEffect,
  useRef,
  useSyncExternalStore,
  type ComponentType,
  type ReactNode,
} from "react";
import type { AuditEntry } from "../store/types";
import { plural } from "../capabilities/plural";
import type { AskRecord, CapabilityController, CapabilityState, PendingAsk } from "../session/capabilityController";
import type { AskKind } from "../capabilities/Capability";
import type { InteractionSummary } from "../agent/interactionLifecycle";
import { costOf, formatCost, TokenPriceContext } from "./cost";
import { saveFile } from "./saveFile";

import { useModalDialog } from "./useModalDialog";

export const CapabilitiesContext = createContext<CapabilityController | undefined>(undefined);

/**
 * What the capability modules add to the page beyond their asks: their
 * sections of Session settings (bound to their installed instances:
 * `InstalledCapability.Settings`) and their words in the interaction
 * summary (`Capability.summary`), both in the list's order.
 */
export interface CapabilityViews {
  readonly sections: readonly { readonly name: string; readonly Settings: ComponentType }[];
  readonly summaries: readonly ((used: readonly AuditEntry[]) => string | undefined)[];
}
export const CapabilityViewsContext = createContext<CapabilityViews>({ sections: [], summaries: [] });

/** Each capability's kind of ask (its view, its words) by the `capability` tag its asks carry (src/capabilities: `Capability.ask`). */
export type AskKinds = ReadonlyMap<string, AskKind<PendingAsk>>;
export const AskKindsContext = createContext<AskKinds>(new Map());

const EMPTY: CapabilityState = {
  strict: false,
  asks: [],
  askRecords: [],
  downloads: [],
  audit: [],
};
const noop = () => () => undefined;

export function useCapabilities(): { controller?: CapabilityController; state: CapabilityState } {
  const controller = useContext(CapabilitiesContext);
  const read = controller?.getState ?? (() => EMPTY);
  // The same snapshot on a server render (tests draw the dialog to static markup).
  const state = useSyncExternalStore(controller?.subscribe ?? noop, read, read);
  return { controller, state };
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? "" : "s"}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The ask records and offered files of one reply that belong after code
 * block `afterBlock` (or, with `rest`, those whose block is not among `blocks`).
 */
export function CapabilitySlot({
  replyId,
  afterBlock,
  rest,
}: {
  replyId: string;
  afterBlock?: number;
  rest?: readonly number[];
}) {
  const { controller, state } = useCapabilities();
  if (!controller) return null;
  const here = (item: { replyId?: string; afterBlock: number }) =>
    item.replyId === replyId && (rest ? !rest.includes(item.afterBlock) : item.afterBlock === afterBlock);
  const records = state.askRecords.filter((record) => here(record.ask));
  const downloads = state.downloads.filter(here);
  if (records.length === 0 && downloads.length === 0) return null;
  return (
    <>
      {records.map((record) => (
        <AskRecordView key={record.ask.id} record={record} />
      ))}
      {downloads.map((offer) => (
        <div key={offer.id} className="lm-download" role="group" aria-label="Offered file">
          <span className="lm-download__name">{offer.name}</span>
          <span className="lm-download__size">{formatBytes(offer.size)}</span>
          <button type="button" className="lm-button" onClick={() => controller.saveDownload(offer.id, saveFile)}>
            Save
          </button>
          {offer.saved && <span className="lm-download__saved">Saved</span>}
        </div>
      ))}
    </>
  );
}

function outcomeWords(record: AskRecord, kind: AskKind<PendingAsk> | undefined): string {
  const { ask, outcome } = record;
  switch (outcome) {
    case undefined:
      return "Waiting for your answer above the message box:";
    case "once":
      return "Allowed once:";
    case "deny":
      return "Denied:";
    case "withdrawn":
      return "Not answered (the call ended):";
    default:
      // The kind's "always" ("host", "tool"): what it covers.
      return kind && outcome === kind.always ? `Always allowed ${kind.covers(ask)}:` : "Always allowed:";
  }
}

/** The timeline's record of one ask (the ask itself waits above the composer); what it was about in its kind's few words. */
function AskRecordView({ record }: { record: AskRecord }) {
  const kind = useContext(AskKindsContext).get(record.ask.capability);
  return (
    <p
      className={`lm-ask-record${record.outcome === undefined ? " lm-ask-record--waiting" : ""}`}
      role="note"
      aria-label="Permission record"
    >
      {outcomeWords(record, kind)} <code className="lm-ask__url">{kind?.action(record.ask)}</code>
    </p>
  );
}

/**
 * The asks waiting for the person, in a fixed area above the composer:
 * generated UI lives in the timeline and cannot move, cover or restyle
 * this area. Oldest at the bottom, nearest the composer; a new ask stacks
 * above, so the ones already shown stay where they are.
 */
export function PendingAsks({ onHeight }: { onHeight?: (height: number) => void }) {
  const { controller, state } = useCapabilities();
  if (!controller || state.asks.length === 0) return null;
  return <AsksArea controller={controller} asks={state.asks} onHeight={onHeight} />;
}

function AsksArea({
  controller,
  asks,
  onHeight,
}: {
  controller: CapabilityController;
  asks: readonly PendingAsk[];
  onHeight?: (height: number) => void;
}) {
  const area = useRef<HTMLElement>(null);
  const kinds = useContext(AskKindsContext);
  useLayoutEffect(() => {
    const element = area.current;
    if (!element || !onHeight) return;
    const report = () => onHeight(Math.ceil(element.getBoundingClientRect().height));
    report();
    const observer = new ResizeObserver(report);
    observer.observe(element);
    return () => {
      observer.disconnect();
      onHeight(0);
    };
  }, [onHeight]);
  return (
    <section ref={area} className="lm-asks" aria-label="Permission requests">
      {/* At the top: appearing when a second ask comes, it moves none of the asks below it. */}
      {asks.length > 1 && (
        <div className="lm-asks__head">
          <span>{asks.length} permission requests are waiting</span>
          <button type="button" className="lm-button" onClick={() => controller.denyAll()}>
            Deny all
          </button>
        </div>
      )}
      <div className="lm-asks__list">
        {asks.map((ask) => {
          const View = kinds.get(ask.capability)?.View;
          return View ? <View key={ask.id} ask={ask} controller={controller} /> : null;
        })}
      </div>
    </section>
  );
}

export function SessionSettingsDialog({ onClose, children }: { onClose: () => void; children?: ReactNode }) {
  const { controller, state } = useCapabilities();
  // Modal: focus stays inside and returns to the opener on close (useModalDialog.ts).
  const dialog = useModalDialog();
  const { strict, audit } = state;
  const { sections } = useContext(CapabilityViewsContext);
  return (
    <dialog
      ref={dialog}
      className="lm-dialog lm-dialog--wide"
      aria-labelledby="lm-session-settings-title"
      onClose={onClose}
    >
      <h2 id="lm-session-settings-title">Session settings</h2>
      <p className="lm-dialog__hint">
        Rights belong to this session: what its code may reach. Generated code never sees your API key.
      </p>
      {children}
      {sections.map(({ name, Settings }) => (
        <Settings key={name} />
      ))}
      <div className="lm-field">
        <label>
          <input type="checkbox" checked={strict} onChange={(event) => controller?.setStrict(event.target.checked)} />{" "}
          Strict mode
        </label>
        <small>Ask for every request and every tool call, even to allowed hosts and tools.</small>
      </div>
      <section className="lm-field" aria-label="Audit list">
        <h3 className="lm-dialog__subtitle">Audit list</h3>
        {audit.some((entry) => entry.fromFile === true) && (
          <p className="lm-dialog__hint">
            Lines marked “from the file” came with the imported file: what the browser that exported it recorded, not
            what this session did here.
          </p>
        )}
        {audit.length === 0 ? (
          <p className="lm-dialog__hint">Nothing yet: no code of this session has used a capability.</p>
        ) : (
          <div className="lm-audit">
            <table>
              <thead>
                <tr>
                  <th>Time</th>
                  <th>Capability</th>
                  <th>Action</th>
                  <th>Decision</th>
                  <th>Bytes</th>
                  <th>Result</th>
                </tr>
              </thead>
              <tbody>
                {audit.map((entry, index) => (
                  <tr key={entry.id ?? `a${index}`}>
                    <td>{new Date(entry.at).toLocaleTimeString()}</td>
                    <td>{entry.capability}</td>
                    <td className="lm-audit__action">
                      {entry.method} {entry.url}
                      {entry.fromFile === true && (
                        <>
                          {" "}
                          <span
                            className="lm-audit__from-file"
                            title="Recorded in the browser that exported the file, not by this session here"
                          >
                            from the file
                          </span>
                        </>
                      )}
                    </td>
                    <td>{entry.decision}</td>
                    <td>{typeof entry.bytes === "number" ? formatBytes(entry.bytes) : ""}</td>
                    <td>
                      {[
                        entry.status,
                        entry.result,
                        typeof entry.tokensIn === "number" || typeof entry.tokensOut === "number"
                          ? `· tokens ${Number(entry.tokensIn ?? 0).toLocaleString("en-US")} in / ${Number(entry.tokensOut ?? 0).toLocaleString("en-US")} out`
                          : undefined,
                      ]
                        .filter((part) => part !== undefined && part !== "")
                        .join(" ")}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <div className="lm-dialog__actions">
        <button type="button" className="lm-button lm-button--primary" onClick={onClose}>
          Close
        </button>
      </div>
    </dialog>
  );
}

const STATE_WORD: Record<string, string> = {
  received: "received",
  streaming: "streaming",
  running: "running",
  "waiting-input": "waiting for input",
  "waiting-permission": "waiting for permission",
  done: "done",
  error: "error",
  stopped: "stopped",
};

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The summary's tokens with those the audit lines report (model calls from code), in and out. */
function withCallTokens(summary: InteractionSummary, used: readonly AuditEntry[]): InteractionSummary {
  let tokensIn: number | undefined;
  let tokensOut: number | undefined;
  for (const entry of used) {
    if (typeof entry.tokensIn === "number") tokensIn = (tokensIn ?? 0) + entry.tokensIn;
    if (typeof entry.tokensOut === "number") tokensOut = (tokensOut ?? 0) + entry.tokensOut;
  }
  if (tokensIn === undefined && tokensOut === undefined) return summary;
  return {
    ...summary,
    tokensIn: (summary.tokensIn ?? 0) + (tokensIn ?? 0),
    tokensOut: (summary.tokensOut ?? 0) + (tokensOut ?? 0),
  };
}

/** The compact summary under the last reply of an interaction, with its lifecycle. */
export function InteractionSummaryView({ summary: turns }: { summary: InteractionSummary }) {
  const { state } = useCapabilities();
  const { summaries } = useContext(CapabilityViewsContext);
  const end = turns.startedAt + turns.durationMs;
  // What came with an imported file is another browser's history, never this interaction's.
  const used = state.audit.filter((entry) => entry.fromFile !== true && entry.at >= turns.startedAt && entry.at <= end);
  // The tokens of model calls from code (`ai`, on their audit lines) count with the turns'.
  const summary = withCallTokens(turns, used);
  const cost = costOf(summary.tokensIn, summary.tokensOut, useContext(TokenPriceContext));
  const capabilities = summaries.flatMap((summarize) => summarize(used) ?? []);
  const parts = [
    plural(summary.turns, "turn"),
    plural(summary.statements, "statement") + " run",
    plural(summary.errors, "error"),
    `mounts: ${summary.mountsCreated} created, ${summary.mountsUpdated} updated`,
    capabilities.length > 0 ? capabilities.join("; ") : "no capabilities used",
    summary.tokensIn !== undefined || summary.tokensOut !== undefined
      ? `tokens: ${(summary.tokensIn ?? 0).toLocaleString("en-US")} in / ${(summary.tokensOut ?? 0).toLocaleString("en-US")} out`
      : "tokens: not reported",
    cost !== undefined ? `cost ${formatCost(cost)}` : "",
    seconds(summary.durationMs),
  ].filter(Boolean);
  return (
    <details className="lm-summary" aria-label="Interaction summary">
      <summary>
        <span className={`lm-summary__outcome lm-summary__outcome--${summary.outcome}`}>
          {STATE_WORD[summary.outcome]}
        </span>{" "}
        · {parts.join(" · ")}
      </summary>
      <ol className="lm-summary__steps" aria-label="Lifecycle">
        {summary.steps.map((step, index) => (
          <li key={index}>
            {STATE_WORD[step.state] ?? step.state} <span className="lm-summary__time">{seconds(step.atMs)}</span>
            {step.detail ? ` (${step.detail})` : ""}
          </li>
        ))}
      </ol>
    </details>
  );
}
