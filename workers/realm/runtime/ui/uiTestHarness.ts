/**
 * Test support (not part of the realm bundle): a createUiGlobals with a
 * manual frame scheduler and a host mirror that applies every message the
 * way the host must (applyOps checks every id).
 */
import {
  MAX_OPS_PER_MESSAGE,
  MOUNT_OPS,
  UI_EVENT,
  type MountErrorInfo,
  type MountRealmMessage,
  type MountSnapshot,
  type SnapshotNode,
  type UiEventPayload,
  isSnapshotText,
  validateMountMessage,
} from "../../../../src/wire/mount";
import { printSnapshot } from "../../reconciler/applyOps";
import { rebuildOpenParts } from "../../reconciler/rebuildOpenParts";
import type { UiError } from "./createMountRuntime";
import { createUiGlobals, type UiGlobals } from "./createUiGlobals";

export interface HostMount {
  title?: string;
  snapshot: MountSnapshot;
  error: MountErrorInfo | null;
  formErrors: Record<string, string>;
  waiting: boolean;
  closed: boolean;
  /** MOUNT_OPS messages received. */
  opsMessages: number;
}

export function createUiHarness(options: { locate?: (error: unknown) => { line?: number } | undefined } = {}) {
  const messages: MountRealmMessage[] = [];
  const errors: UiError[] = [];
  const frames: (() => void)[] = [];
  const mounts = new Map<string, HostMount>();
  /** Mount trees, first renders in parts included (shown only with their last part). */
  const trees = rebuildOpenParts(mounts);
  const ui: UiGlobals = createUiGlobals({
    post(message) {
      // Everything the realm sends must pass the host's validator unchanged.
      const checked = validateMountMessage(structuredClone(message), { maxEntries: MAX_OPS_PER_MESSAGE });
      if (!checked.ok) throw new Error(`invalid mount message: ${checked.reason}`);
      messages.push(checked.message);
      receive(checked.message);
    },
    onError: (error) => errors.push(error),
    schedule: (callback) => frames.push(callback),
    locate: options.locate,
  });

  function receive(message: MountRealmMessage): void {
    const created = (open: { title?: string; snapshot: MountSnapshot }): HostMount => ({
      title: open.title,
      snapshot: open.snapshot,
      error: null,
      formErrors: {},
      waiting: false,
      closed: false,
      opsMessages: 0,
    });
    trees.receive(message, created);
    if (message.kind === MOUNT_OPS) mounts.get(message.mountId)!.opsMessages += 1;
  }

  /** Let microtasks, React's scheduler and timers run, then run pending frames; repeat until quiet. */
  async function settle(): Promise<number> {
    let ran = 0;
    for (let round = 0; round < 5; round += 1) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      while (frames.length > 0) {
        frames.shift()!();
        ran += 1;
      }
    }
    return ran;
  }

  function host(mountId: string): HostMount {
    const mount = mounts.get(mountId);
    if (!mount) throw new Error(`no mount ${mountId} on the host`);
    return mount;
  }

  function find(mountId: string, predicate: (node: SnapshotNode) => boolean): SnapshotNode | undefined {
    const visit = (nodes: SnapshotNode[]): SnapshotNode | undefined => {
      for (const node of nodes) {
        if (predicate(node)) return node;
        if (!isSnapshotText(node)) {
          const found = visit(node.children);
          if (found) return found;
        }
      }
      return undefined;
    };
    return visit(host(mountId).snapshot.nodes);
  }

  /** Dispatch a UI event to the first element of `type` (optionally with a given text) in the mount. */
  function fire(mountId: string, type: string, handler: string, payload: UiEventPayload = {}, text?: string): boolean {
    const node = find(
      mountId,
      (candidate) => candidate.type === type && (text === undefined || textOf(candidate) === text),
    );
    if (!node) throw new Error(`no <${type}> in ${mountId}: ${html(mountId)}`);
    return ui.handleUiEvent({ type: UI_EVENT, mountId, nodeId: node.id, handler, payload });
  }

  function html(mountId: string): string {
    return printSnapshot(host(mountId).snapshot);
  }

  return { ui, globals: ui.globals, messages, errors, frames, settle, host, html, fire, find };
}

export function textOf(node: SnapshotNode): string {
  return isSnapshotText(node) ? node.text : node.children.map(textOf).join("");
}
