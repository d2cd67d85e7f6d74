import { FeedbackCollector, type FeedbackInput } from "./feedback";
import type { ChatMessage, RealmPort } from "./types";

/**
 * Turns a person's action on a mounted UI starts (README "Which turn does
 * output belong to?"): by identity, never by time. Each action gets an id
 * (`note`); output the realm tagged with it while no interaction runs is
 * gathered here, and once the realm has answered a flush the whole burst
 * goes to the model as one UI-event turn, naming the mounts the action
 * changed. Untagged output never joins.
 */

/** UI event ids are unique per page, across agents (sessions) and realms. */
let nextUiEventId = 1;
const MAX_TRACKED_UI_EVENTS = 1_000;
/** A UI-event turn waits at most this long for the realm's flush (a handler still running synchronously). */
const UI_SETTLE_TIMEOUT_MS = 5_000;

export interface UiEventHost {
  realm: RealmPort;
  messages(): readonly ChatMessage[];
  /** The session is closing: nothing new starts. */
  closed(): boolean;
  /** An interaction runs: the action's output waits for its next turn instead. */
  busy(): boolean;
  /** A line for the next turn's feedback (output that cannot start a turn now). */
  defer(line: string): void;
  /** Start a UI-event turn with this feedback. */
  start(body: string): void;
}

export class UiEventTurns {
  /** Ids of the person's actions on mounted UIs, most recent last. */
  private readonly events = new Set<number>();
  /** Mounts each tracked action's handler changed (MOUNT_OPS `eventId`): named in that action's turn. */
  private readonly mountChanges = new Map<number, Set<string>>();
  /** Output their handlers caused while no interaction ran: the next UI-event turn's feedback. */
  private output: FeedbackCollector | undefined;
  /** The actions whose output `output` holds. */
  private causes = new Set<number>();
  /** A UI-event turn waits for the realm to have sent everything the action caused so far. */
  private pending = false;

  constructor(private readonly host: UiEventHost) {}

  /** A new action: the id its UI event carries to the realm (UI_EVENT `eventId`). */
  note(): number {
    const id = nextUiEventId++;
    this.events.add(id);
    // Keep the set bounded; an action this old has long finished its turn.
    if (this.events.size > MAX_TRACKED_UI_EVENTS) {
      const oldest = this.events.values().next().value!;
      this.events.delete(oldest);
      this.mountChanges.delete(oldest);
    }
    return id;
  }

  tracks(cause: number | undefined): cause is number {
    return cause !== undefined && this.events.has(cause);
  }

  /** A mount changed by a tracked action's handler (mount-ops tagged with its id). */
  mountChanged(cause: number | undefined, mountId: string): void {
    if (!this.tracks(cause)) return;
    const changed = this.mountChanges.get(cause) ?? new Set<string>();
    changed.add(mountId);
    this.mountChanges.set(cause, changed);
  }

  /** Output a tracked action caused while no interaction ran. */
  capture(event: FeedbackInput, cause: number): void {
    this.output ??= new FeedbackCollector();
    this.output.add(event);
    this.causes.add(cause);
    this.schedule();
  }

  dispose(): void {
    this.output = undefined;
  }

  private schedule(): void {
    if (this.pending) return;
    this.pending = true;
    // Everything the realm sent before answering a flush is here when the
    // answer is: the whole burst one action caused goes to the model once.
    // (No clock: output the handler causes later starts its own turn.)
    void this.host.realm
      .flush(UI_SETTLE_TIMEOUT_MS)
      .catch(() => undefined)
      .then(() => {
        this.pending = false;
        const output = this.output;
        const causes = this.causes;
        this.output = undefined;
        this.causes = new Set();
        if (!output || output.empty || this.host.closed()) return;
        // Which mounts these actions changed (the realm sent their ops before the flush answered).
        const changed = new Set<string>();
        for (const cause of causes) {
          for (const mountId of this.mountChanges.get(cause) ?? []) changed.add(mountId);
          this.mountChanges.delete(cause);
        }
        for (const mountId of changed)
          output.add({ type: "note", message: `mount ${mountLabel(this.host.messages(), mountId)} updated` });
        if (this.host.busy()) {
          for (const line of output.text().split("\n")) this.host.defer(line);
          return;
        }
        this.host.start(output.text());
      });
  }
}

/** `"Title"` when the mount has one, else its id within its realm (`m1`). */
function mountLabel(messages: readonly ChatMessage[], mountId: string): string {
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    const title = message.reply.mounts?.find((mount) => mount.mountId === mountId)?.title;
    if (title !== undefined) return JSON.stringify(title);
  }
  return mountId.slice(mountId.lastIndexOf(":") + 1);
}
