/**
 * What the person sees of capabilities (DESIGN.md §4): the asks, with
 * exactly **Allow once**, **Always allow this host** and **Deny**, in a fixed
 * area above the composer (`PendingAsks`), and a record of each in the
 * timeline where the call was made; offered downloads with a **Save**
 * button; the **Session settings** dialog (each capability's own
 * section, **Strict mode**, the audit list) is SessionSettingsDialog.tsx,
 * loaded on first use.
 */
import {
  createContext,
  useContext,
  useEffect,
  useLayoutEffect,
  useRef,
  useSyncExternalStore,
  type ComponentType,
} from "react";
import type { AuditEntry } from "../store/types";
import { plural } from "../capabilities/plural";
import type { AskRecord, CapabilityController, CapabilityState, PendingAsk } from "../session/capabilityController";
import type { AskKind, TimelinePlaceProps } from "../capabilities/Capability";
import type { InteractionSummary } from "../agent/interactionLifecycle";
import { costOf, formatCost, TokenPriceContext } from "./cost";
import { saveFile } from "./saveFile";

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
  /** What they show in the timeline at a place (tools: MCP App panels): `InstalledCapability.Timeline`. */
  readonly timeline?: readonly ComponentType<TimelinePlaceProps>[];
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
  const { timeline = [] } = useContext(CapabilityViewsContext);
  if (!controller) return null;
  const here = (item: { replyId?: string; afterBlock: number }) =>
    item.replyId === replyId && (rest ? !rest.includes(item.afterBlock) : item.afterBlock === afterBlock);
  const records = state.askRecords.filter((record) => here(record.ask));
  const downloads = state.downloads.filter(here);
  const shown = timeline.map((Items, index) => (
    <Items key={`t${index}`} replyId={replyId} afterBlock={afterBlock} rest={rest} />
  ));
  // One shape whatever is here: a record appearing must not draw the panels again (an MCP App's frame would reload).
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
      {shown}
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

/**
 * The footer's one line under the last reply of an interaction: the reply's
 * meta (model · time · tokens · cost) and, unless it went well, how it
 * ended; the interaction's counts and lifecycle are collapsed behind it. A
 * reply whose request failed says so, never "error · … · 0 errors".
 */
export function InteractionSummaryView({ summary: turns, meta }: { summary: InteractionSummary; meta: string }) {
  const { state } = useCapabilities();
  const { summaries } = useContext(CapabilityViewsContext);
  const end = turns.startedAt + turns.durationMs;
  // What came with an imported file is another browser's history, never this interaction's.
  const used = state.audit.filter((entry) => entry.fromFile !== true && entry.at >= turns.startedAt && entry.at <= end);
  // The tokens of model calls from code (`ai`, on their audit lines) count with the turns'.
  const summary = withCallTokens(turns, used);
  const cost = costOf(summary.tokensIn, summary.tokensOut, useContext(TokenPriceContext));
  const capabilities = summaries.flatMap((summarize) => summarize(used) ?? []);
  const parts = summaryParts(summary, capabilities, cost);
  const outcome = summary.outcome === "error" ? REQUEST_FAILED : STATE_WORD[summary.outcome];
  return (
    <details className="lm-summary" aria-label="Interaction summary">
      <summary>
        <span className="lm-message-meta" aria-label="Reply details">
          {meta}
        </span>
        {summary.outcome !== "done" && (
          <span className={`lm-summary__outcome lm-summary__outcome--${summary.outcome}`}> · {outcome}</span>
        )}
      </summary>
      <p className="lm-summary__counts">
        <span className={`lm-summary__outcome lm-summary__outcome--${summary.outcome}`}>{outcome}</span> ·{" "}
        {parts.join(" · ")}
      </p>
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

/** An interaction that ended in "error": its request to the model failed (the reply's alert says why). */
export const REQUEST_FAILED = "request failed";

/**
 * The counts behind the footer's line. A failed request leaves out the
 * counts that are zero: "0 statements run · 0 errors" under a failure would
 * read as if nothing went wrong.
 */
export function summaryParts(summary: InteractionSummary, capabilities: readonly string[], cost?: number): string[] {
  const failed = summary.outcome === "error";
  const mounts = summary.mountsCreated + summary.mountsUpdated;
  return [
    plural(summary.turns, "turn"),
    failed && summary.statements === 0 ? "" : plural(summary.statements, "statement") + " run",
    failed && summary.errors === 0 ? "" : plural(summary.errors, "error"),
    failed && mounts === 0 ? "" : `mounts: ${summary.mountsCreated} created, ${summary.mountsUpdated} updated`,
    capabilities.length > 0 ? capabilities.join("; ") : failed ? "" : "no capabilities used",
    summary.tokensIn !== undefined || summary.tokensOut !== undefined
      ? `tokens: ${(summary.tokensIn ?? 0).toLocaleString("en-US")} in / ${(summary.tokensOut ?? 0).toLocaleString("en-US")} out`
      : "tokens: not reported",
    cost !== undefined ? `cost ${formatCost(cost)}` : "",
    seconds(summary.durationMs),
  ].filter(Boolean);
}
