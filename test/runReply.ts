/**
 * Runs a whole reply through the real protocol parser and the realm the
 * worker runs (workers/realm/createRealm.ts: executor, UI runtime, globals)
 * in Node, the way the agent and the realm do in the browser, and returns
 * what the realm reported. Used by contract tests of the prompt and demo
 * scripts.
 *
 * `createMountHost` is a stand-in for the page's side of mounts: it checks
 * every mount message with the host's validator, keeps each mount's tree
 * with the reference `applyOps`, and builds the UI events the page would
 * send (a submitted form, a click).
 */
import { createBlockRouter } from "../src/agent/routeBlocks";
import { createProtocolParser } from "../src/protocol/parser";
import { specFor } from "../src/render/componentSpecs";
import { sanitizeClassName } from "../src/render/sanitizeCss";
import { sanitizeProps } from "../src/render/sanitizeProps";
import type { ExecEvent } from "../src/wire/events";
import {
  MAX_OPS_PER_MESSAGE,
  UI_EVENT,
  isHandlerMarker,
  isSnapshotText,
  validateMountMessage,
  type FormValues,
  type MountErrorInfo,
  type MountRealmMessage,
  type MountSnapshot,
  type SnapshotElement,
  type SnapshotNode,
  type UiEventMessage,
} from "../src/wire/mount";
import { createRealm, type RealmTimers } from "../workers/realm/createRealm";
import { printSnapshot } from "../workers/realm/reconciler/applyOps";
import { rebuildOpenParts } from "../workers/realm/reconciler/rebuildOpenParts";
import type { HostRequests } from "../workers/realm/runtime/createHostRequests";

export interface HostMount {
  mountId: string;
  title?: string;
  snapshot: MountSnapshot;
  error: MountErrorInfo | null;
  formErrors: Record<string, string>;
  waiting: boolean;
  closed: boolean;
}

export type MountHost = ReturnType<typeof createMountHost>;

export function createMountHost() {
  const messages: MountRealmMessage[] = [];
  const mounts = new Map<string, HostMount>();
  /** Mount trees, first renders in parts included (shown only with their last part). */
  const trees = rebuildOpenParts(mounts);
  const listeners = new Set<(message: MountRealmMessage) => void>();

  /** Validate (as the page does) and apply one message from the realm; returns the validated copy. */
  function receive(raw: MountRealmMessage): MountRealmMessage {
    const checked = validateMountMessage(structuredClone(raw), { maxEntries: MAX_OPS_PER_MESSAGE });
    if (!checked.ok) throw new Error(`invalid mount message: ${checked.reason}`);
    const message = checked.message;
    messages.push(message);
    trees.receive(message, (open) => ({
      mountId: open.mountId,
      title: open.title,
      snapshot: open.snapshot,
      error: null,
      formErrors: {},
      waiting: false,
      closed: false,
    }));
    for (const listener of [...listeners]) listener(message);
    return message;
  }

  function subscribe(listener: (message: MountRealmMessage) => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  /** The first message (already received or still to come) that matches. */
  function waitFor(predicate: (message: MountRealmMessage) => boolean, timeoutMs = 10_000): Promise<MountRealmMessage> {
    const seen = messages.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        stop();
        reject(
          new Error(`no matching mount message within ${timeoutMs} ms; got ${messages.map((m) => m.type).join(", ")}`),
        );
      }, timeoutMs);
      const stop = subscribe((message) => {
        if (!predicate(message)) return;
        clearTimeout(timer);
        stop();
        resolve(message);
      });
    });
  }

  function mount(mountId: string): HostMount {
    const found = mounts.get(mountId);
    if (!found) throw new Error(`no mount ${mountId} on the host`);
    return found;
  }

  function findAll(mountId: string, predicate: (node: SnapshotElement) => boolean): SnapshotElement[] {
    const found: SnapshotElement[] = [];
    const visit = (nodes: SnapshotNode[]): void => {
      for (const node of nodes) {
        if (isSnapshotText(node)) continue;
        if (predicate(node)) found.push(node);
        visit(node.children);
      }
    };
    visit(mount(mountId).snapshot.nodes);
    return found;
  }

  /** Every component type in the mount's current tree, in document order, without duplicates. */
  function types(mountId: string): string[] {
    return [...new Set(findAll(mountId, () => true).map((node) => node.type))];
  }

  function html(mountId: string): string {
    return printSnapshot(mount(mountId).snapshot);
  }

  /** What the page sends when the person submits the mount's form with these field values. */
  function submitEvent(mountId: string, values: FormValues): UiEventMessage {
    const [form] = findAll(mountId, (node) => node.type === "form");
    if (!form) throw new Error(`no <form> in ${mountId}: ${html(mountId)}`);
    return { type: UI_EVENT, mountId, nodeId: form.id, handler: "onSubmit", payload: { values } };
  }

  /** What the page sends when the person clicks the mount's first Button with an onClick handler (and this text). */
  function clickEvent(mountId: string, text?: string): UiEventMessage {
    const [button] = findAll(
      mountId,
      (node) =>
        node.type === "Button" && isHandlerMarker(node.props.onClick) && (text === undefined || textOf(node) === text),
    );
    if (!button) throw new Error(`no clickable <Button>${text ?? ""} in ${mountId}: ${html(mountId)}`);
    return { type: UI_EVENT, mountId, nodeId: button.id, handler: "onClick", payload: {} };
  }

  /**
   * What the page could not draw as written, by its own catalog and
   * sanitizer: unknown components, dropped props, refused class tokens.
   * Empty for a mount that shows exactly what its code meant.
   */
  function drawProblems(mountId: string): string[] {
    const problems: string[] = [];
    for (const node of findAll(mountId, () => true)) {
      const spec = specFor(node.type);
      if (!spec) {
        problems.push(`<${node.type}> is not in the catalog`);
        continue;
      }
      const { dropped } = sanitizeProps(spec, node.props, { idPrefix: `lm-${mountId}-` });
      for (const { prop, reason } of dropped) problems.push(`<${node.type} ${prop}> dropped: ${reason}`);
      if (typeof node.props.className === "string") {
        const asked = node.props.className.split(/\s+/).filter(Boolean);
        const kept = new Set(sanitizeClassName(node.props.className).tokens);
        for (const token of asked) if (!kept.has(token)) problems.push(`<${node.type} className> refused "${token}"`);
      }
    }
    return problems;
  }

  return {
    messages,
    mounts,
    receive,
    subscribe,
    waitFor,
    mount,
    findAll,
    types,
    html,
    submitEvent,
    clickEvent,
    drawProblems,
  };
}

export function textOf(node: SnapshotNode): string {
  return isSnapshotText(node) ? node.text : node.children.map(textOf).join("");
}

export interface ReplyRun {
  events: ExecEvent[];
  logs: string[];
  errors: string[];
  protocolErrors: string[];
  /** Mount messages the realm sent while this reply ran. */
  mountMessages: MountRealmMessage[];
}

/** `timers`: the clock the model's timers and sleep run on (test/virtualClock.ts; default real time). */
export function createSession(options: { loopBudgetMs?: number; requests?: HostRequests; timers?: RealmTimers } = {}) {
  const events: ExecEvent[] = [];
  const host = createMountHost();
  const realm = createRealm({ loopBudgetMs: options.loopBudgetMs ?? 500, timers: options.timers });
  // Capabilities (fetch, files) reach `requests` (a stand-in host) when given; otherwise they are refused.
  const executor = realm.attach({
    onEvent: (event) => events.push(event),
    post: (message) => void host.receive(message),
    requests: options.requests,
  });
  const ui = realm.ui;

  /**
   * Streams `reply` in `chunkSize` pieces, `delayMs` apart (0: all at once, as
   * fast as the parser takes them); resolves when its code and data have run
   * (a form must be submitted first).
   */
  async function run(reply: string, chunkSize = 5, delayMs = 0): Promise<ReplyRun> {
    const start = events.length;
    const mountStart = host.messages.length;
    const parser = createProtocolParser();
    const protocolErrors: string[] = [];
    executor.beginReply();
    const router = createBlockRouter((event) => executor.handleBlock(event));
    const route = (items: ReturnType<typeof parser.push>) => {
      for (const problem of router(items)) if (problem.type === "protocol-error") protocolErrors.push(problem.message);
    };
    for (let at = 0; at < reply.length; at += chunkSize) {
      route(parser.push(reply.slice(at, at + chunkSize)));
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    route(parser.end());
    await executor.idle();
    // The last frame (ops of the final mutations) reaches the host, as before the worker's FLUSHED.
    realm.settle();
    const mine = events.slice(start);
    return {
      events: mine,
      logs: logsOf(mine),
      errors: errorsOf(mine),
      protocolErrors,
      mountMessages: host.messages.slice(mountStart),
    };
  }

  /** Logs and errors that arrived since `from` (an index into `events`), e.g. from a click after the reply ended. */
  function since(from: number): { logs: string[]; errors: string[] } {
    const later = events.slice(from);
    return { logs: logsOf(later), errors: errorsOf(later) };
  }

  return { run, since, executor, ui, host, events, realm };
}

function logsOf(events: ExecEvent[]): string[] {
  return events.flatMap((event) => (event.type === "console" ? [event.text] : []));
}

function errorsOf(events: ExecEvent[]): string[] {
  return events.flatMap((event) =>
    event.type === "error"
      ? [event.error.message]
      : event.type === "statement-end" && event.error
        ? [event.error.message]
        : [],
  );
}
