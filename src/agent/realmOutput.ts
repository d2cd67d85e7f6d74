import type { RealmEvent } from "../sandbox/types";
import type { MountRealmMessage } from "../wire/mount";
import type { ExecEvent } from "../wire/events";
import { runningDetail } from "./blockPlaces";
import { FeedbackCollector } from "./feedback";
import type { InteractionLifecycle } from "./interactionLifecycle";
import { placeMount } from "./placeMount";
import type { ReviveTarget } from "./revive";
import type { StateStore } from "./stateStore";
import type { BlockView } from "./reply";
import type { ChatMessage, RealmPort } from "./types";
import { UiEventTurns } from "./uiEventTurns";

/**
 * Where the realm's output goes (README "Which turn does output belong
 * to?"), for as long as the agent lives: it subscribes to the realm's events
 * and mount messages and hands each to the turn that listens, to Revive
 * (reported to the person, never to the model), to a UI-event turn (tagged
 * with a tracked action's id while nothing runs), or keeps it for the next
 * interaction's first turn (output of timers while idle never starts one).
 * Mounts that open are placed after the block that opened them; mounts whose
 * code awaits the person set "waiting-input".
 */

/** What of the running interaction the routing reads (interaction.ts). */
export interface RunningInteraction {
  lifecycle: Pick<InteractionLifecycle, "exec" | "mount">;
  /** The current turn: realm output is its while it listens (turn.ts). */
  turn: { listening: boolean; replyId: string; collector: FeedbackCollector; exec(event: ExecEvent): void } | undefined;
}

export interface RealmOutputHost {
  realm: RealmPort;
  store: StateStore;
  interaction(): RunningInteraction | undefined;
  /** An interaction or Revive runs. */
  busy(): boolean;
  /** The session is closing: no UI-event turn starts. */
  closed(): boolean;
  /** Start a UI-event turn with this feedback. */
  startUiTurn(body: string): void;
}

export class RealmOutput {
  /** Realm output that arrived while no interaction ran (timers): waits for the next turn. */
  private idle = new FeedbackCollector();
  /** While Revive runs: its output, and which reply and block it re-runs (mounts that open land there). */
  private revive: { output: FeedbackCollector; target: ReviveTarget | undefined } | undefined;
  private readonly uiTurns: UiEventTurns;
  private readonly unsubscribe: (() => void)[];

  constructor(private readonly host: RealmOutputHost) {
    const { realm, store } = host;
    this.uiTurns = new UiEventTurns({
      realm,
      messages: () => store.state().messages,
      closed: host.closed,
      busy: host.busy,
      defer: (line) => this.idle.add({ type: "note", message: line }),
      start: host.startUiTurn,
    });
    this.unsubscribe = [
      realm.subscribe((event) => this.onRealmEvent(event)),
      realm.subscribeMounts?.((message) => this.onMountMessage(message)) ?? (() => undefined),
    ];
  }

  /** A person's action on a mount: the id its UI event carries to the realm (uiEventTurns.ts). */
  noteUiEvent(): number {
    return this.uiTurns.note();
  }

  /** A problem the host found while drawing a mount: the model hears of it. */
  reportRenderProblem(message: string): void {
    (this.collecting() ?? this.idle).add({ type: "note", message: `UI: ${message}` });
  }

  /** An interaction starts: the output kept since the last one (empty text: none) joins its first turn. */
  takeIdle(): string {
    const idle = this.idle;
    this.idle = new FeedbackCollector();
    return idle.empty ? "" : idle.text();
  }

  /** Notes a turn did not spend a turn on: they join the next interaction's first turn. */
  defer(notes: string): void {
    this.idle.add({ type: "note", message: notes });
  }

  /** The kept output is dropped (Regenerate in a fresh realm: the model hears of neither the reset nor the revive). */
  dropIdle(): void {
    this.idle = new FeedbackCollector();
  }

  /** Revive starts: until `reviveEnded`, output is Revive's, and `target` says which reply it re-runs. */
  reviveStarted(): (target: ReviveTarget | undefined) => void {
    const revive = { output: new FeedbackCollector(), target: undefined as ReviveTarget | undefined };
    this.revive = revive;
    return (target) => void (revive.target = target);
  }

  reviveEnded(): void {
    this.revive = undefined;
  }

  dispose(): void {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    this.uiTurns.dispose();
  }

  /** Where realm output goes now: the listening turn's feedback, Revive's, or none (then it waits for the next turn). */
  private collecting(): FeedbackCollector | undefined {
    return this.listeningTurn()?.collector ?? this.revive?.output;
  }

  private listeningTurn(): RunningInteraction["turn"] {
    const turn = this.host.interaction()?.turn;
    return turn?.listening ? turn : undefined;
  }

  private onRealmEvent(event: RealmEvent): void {
    const { store } = this.host;
    if (event.type === "ready") return;
    if (event.type === "realm-error") {
      store.notice(`Sandbox: ${event.message}`, event.code === "malformed-message" ? "warn" : "error");
      return;
    }
    if (event.type === "realm-reset") {
      store.notice(
        `The sandbox was reset (${event.reason === "unresponsive" ? "it stopped responding" : event.reason === "crashed" ? "it crashed, most likely out of memory" : "on request"}): variables and mounts are gone.`,
        "warn",
      );
    }
    const collector = this.collecting();
    const cause = event.type === "console" || event.type === "error" ? event.cause : undefined;
    if (!collector && !this.host.busy() && this.uiTurns.tracks(cause)) {
      this.uiTurns.capture(event, cause);
      return;
    }
    (collector ?? this.idle).add(event);
    if (!collector || event.type === "realm-reset") return;
    const turn = this.listeningTurn();
    this.host
      .interaction()
      ?.lifecycle.exec(
        event,
        turn ? (running) => runningDetail(replyBlocks(store.state().messages, turn.replyId), running) : undefined,
      );
    turn?.exec(event);
  }

  private onMountMessage(message: MountRealmMessage): void {
    const { store } = this.host;
    this.host.interaction()?.lifecycle.mount(message);
    if (message.kind === "open") {
      const reviving = this.revive?.target;
      const placed = placeMount(store.state().messages, message, {
        replyId: this.listeningTurn()?.replyId,
        revive: reviving,
      });
      if (!placed) return;
      if (placed.replacedRestored && reviving) reviving.replaced = true;
      store.set({ messages: placed.messages });
    } else if (message.kind === "ops") {
      // By identity: only changes the realm tagged with a tracked action's id.
      this.uiTurns.mountChanged(message.eventId, message.mountId);
    } else if (message.kind === "waiting" || message.kind === "close") {
      store.mountWaiting(message.mountId, message.kind === "waiting" && message.waiting);
    }
  }
}

function replyBlocks(messages: readonly ChatMessage[], replyId: string): readonly BlockView[] {
  const reply = messages.find((message) => message.id === replyId);
  return reply?.role === "assistant" ? reply.reply.blocks : [];
}
