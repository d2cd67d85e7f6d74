/**
 * The open session's capabilities as the person sees them (DESIGN.md §4):
 * the asks of every kind waiting in the timeline, strict mode, the audit
 * list and the files the person chose or was offered, kept in IndexedDB with
 * the session. Each capability module loads and saves its own rules when a
 * session opens (`InstalledCapability.open`); the brokers in src/capabilities
 * enforce them. This only asks the person, shows, and saves.
 */
import type { Agent } from "../agent/agent";
import { runningStatement } from "../agent/reply";
import type { FileChooser } from "../render/fileChooser";
import { HostServiceError } from "../sandbox/HostServiceError";
import type { HostService } from "../sandbox/types";
import { bytesToBase64, base64ToBytes } from "../capabilities/base64";
import { MAX_DOWNLOAD_BYTES, MAX_FILE_BYTES, type FileOfferPayload, type FileReadResponse } from "../wire/capabilities";
import type { ChosenFile, JsonValue } from "../wire/mount";
import { addAuditEntry, addGrant, listAudit } from "../store/capabilities";
import { updateCapabilitySettings, updateSessionRules } from "../store/sessions";
import type { Store } from "../store/store";
import type { AuditEntry, Session } from "../store/types";
import type {
  AskAnswer,
  AskKind,
  AskRequest,
  AuditInput,
  InstalledCapability,
  OpenSession,
  PersonSide,
} from "../capabilities/Capability";
import type { JsonValue as SavedValue } from "../wire/mount";

export type { AskAnswer, AuditInput };

/**
 * An ask shown in the timeline, where the call was made, of any kind (a
 * network request, a tool call): the request as its broker raised it, read
 * through its kind (`AskKind`, registered by its capability).
 */
export type PendingAsk = AskRequest & {
  /** The reply whose code made the call, and the code block that was running. */
  replyId?: string;
  afterBlock: number;
};

/**
 * The timeline's record of an ask, where the call was made: the ask itself
 * is answered in the fixed area above the composer (generated UI cannot
 * move it there), the record says what became of it.
 */
export interface AskRecord {
  ask: PendingAsk;
  /** Unset while it waits; "withdrawn" when the call ended unanswered (Stop, the code gave up, another session). */
  outcome?: AskAnswer | "withdrawn";
}

/** The records kept for the timeline (the audit list keeps everything). */
const MAX_ASK_RECORDS = 500;

/**
 * Asks drawn at once; a call that would be one more is refused without
 * asking (`too-many-asks`). Calls of a host (or tool) already asked about
 * wait behind that ask instead (createCapabilityCore.ts) and count not.
 */
export const MAX_PENDING_ASKS = 20;

/** A file offered by `download(...)`, waiting for the person's Save. */
export interface PendingDownload {
  id: string;
  name: string;
  mimeType: string;
  size: number;
  replyId?: string;
  afterBlock: number;
  saved: boolean;
  data: Uint8Array;
}

export interface CapabilityState {
  sessionId?: string;
  /** Strict mode (Session settings): every capability asks for every call, whatever was granted. */
  strict: boolean;
  /** The asks waiting for the person, oldest first (drawn above the composer). */
  asks: PendingAsk[];
  /** What the timeline shows of each ask, oldest first. */
  askRecords: AskRecord[];
  downloads: PendingDownload[];
  audit: AuditEntry[];
}

export class CapabilityController implements PersonSide {
  private state: CapabilityState = {
    strict: false,
    asks: [],
    askRecords: [],
    downloads: [],
    audit: [],
  };
  private readonly listeners = new Set<() => void>();
  private readonly answers = new Map<string, (answer: AskAnswer) => void>();
  /** The kinds of ask the capabilities registered (`asker`), by their tag. */
  private readonly kinds = new Map<string, AskKind>();
  private store: Store | undefined;
  /** Files the person chose in mounted file inputs, by handle (this session only). */
  private readonly chosenFiles = new Map<string, File>();
  /** Downloads arriving in parts, by the realm's offer id. */
  private readonly offersInProgress = new Map<
    string,
    { name: string; mimeType: string; size: number; parts: Uint8Array[] }
  >();
  /** Outside content that entered the realm since the last feedback message (for the untrusted label). */
  private untrusted: string[] = [];
  /** Which session a given open() belongs to: a late load of a previous session is dropped. */
  private generation = 0;
  /** The installed capabilities that follow the open session (`open`, `setStrict`), in the list's order. */
  private readonly installed: [name: string, capability: InstalledCapability][] = [];

  constructor(private readonly options: { agent: () => Agent | undefined; now?: () => number }) {}

  getState = (): CapabilityState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private set(patch: Partial<CapabilityState>): void {
    if (patch.asks && patch.asks.length !== this.state.asks.length)
      this.options.agent()?.setWaitingForPermission(patch.asks.length > 0);
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }

  /** A capability installed on the page (createApp): it hears of each session that opens and of strict mode. */
  install(name: string, capability: InstalledCapability): void {
    this.installed.push([name, capability]);
  }

  /** Each installed capability's view of the open session (`undefined`: none): its saved settings, and how it saves them. */
  private openInstalled(session: Session | undefined, store: Store | undefined): Promise<unknown> {
    const strict = session?.settings.strict === true;
    return Promise.all(
      this.installed.map(async ([name, capability]) => {
        if (!capability.open) return;
        const view: OpenSession | undefined =
          session && store
            ? {
                session,
                store,
                saved: session.settings.capabilities?.[name],
                strict,
                save: (value: SavedValue) =>
                  updateCapabilitySettings(store, session.id, name, value).then(() => undefined),
              }
            : undefined;
        // One capability's failure to load leaves the others (and the session) working.
        await Promise.resolve(capability.open(view)).catch(() => undefined);
      }),
    );
  }

  /** Another session is open: its rules (each installed module's), its audit and strict mode replace the previous one's. */
  async open(session: Session | undefined, store: Store | undefined): Promise<void> {
    const generation = ++this.generation;
    this.store = store;
    for (const resolve of this.answers.values()) resolve("deny");
    this.answers.clear();
    this.chosenFiles.clear();
    this.untrusted = [];
    this.offersInProgress.clear();
    // Each module applies the session's own rules at once, and loads what it saved (its grants) meanwhile: code that
    // runs in between is asked, never let through by the previous session's. What it asks and records then stays.
    const installedOpened = this.openInstalled(session, store);
    this.set({
      sessionId: session?.id,
      strict: session?.settings.strict === true,
      asks: [],
      askRecords: [],
      downloads: [],
      audit: [],
    });
    if (!session || !store) return void (await installedOpened);
    const [saved] = await Promise.all([listAudit(store, session.id).catch(() => []), installedOpened]);
    if (generation !== this.generation) return;
    // Lines recorded while the list loaded may be in it already (their write went first).
    const key = (entry: AuditEntry) => `${entry.at} ${entry.capability} ${entry.method} ${entry.url} ${entry.decision}`;
    const known = new Set(saved.map(key));
    this.set({ audit: [...saved, ...this.state.audit.filter((entry) => !known.has(key(entry)))] });
  }

  /** Where in the timeline something the running code asked for (or opened) belongs. */
  place = (): { replyId?: string; afterBlock: number } => this.position();

  private position(): { replyId?: string; afterBlock: number } {
    const messages = this.options.agent()?.getState().messages ?? [];
    for (let index = messages.length - 1; index >= 0; index -= 1) {
      const message = messages[index];
      if (message.role !== "assistant") continue;
      const running = runningStatement(message.reply);
      const lastCode = [...message.reply.blocks].reverse().find((block) => block.kind === "code");
      return { replyId: message.id, afterBlock: running?.block ?? lastCode?.index ?? -1 };
    }
    return { afterBlock: -1 };
  }

  /** A capability's kind of ask (once per page): its broker asks the person through what this returns. */
  asker<Ask extends AskRequest, Always extends string>(
    kind: AskKind<Ask, Always>,
  ): (request: Ask, signal: AbortSignal) => Promise<AskAnswer<Always>> {
    this.kinds.set(kind.capability, kind as unknown as AskKind);
    return (request, signal) => this.ask(request, signal) as Promise<AskAnswer<Always>>;
  }

  /**
   * Asks the person, in the one queue of every kind: the ask waits above the
   * composer until answered, withdrawn when `signal` aborts; one more than
   * `MAX_PENDING_ASKS` is refused without asking. Its kind must be registered.
   */
  ask = (request: AskRequest, signal: AbortSignal): Promise<AskAnswer> =>
    new Promise<AskAnswer>((resolve, reject) => {
      const kind = this.kinds.get(request.capability);
      if (!kind) throw new Error(`no kind of ask "${request.capability}" is registered`);
      const remove = (outcome: AskRecord["outcome"]) => {
        this.answers.delete(request.id);
        this.set({
          asks: this.state.asks.filter((ask) => ask.id !== request.id),
          askRecords: this.state.askRecords.map((record) =>
            record.ask.id === request.id ? { ...record, outcome } : record,
          ),
        });
      };
      const onAbort = () => {
        remove("withdrawn");
        reject(signal.reason);
      };
      if (signal.aborted) return reject(signal.reason);
      if (this.state.asks.length >= MAX_PENDING_ASKS) {
        const action = kind.refused(request);
        return reject(
          new HostServiceError(
            "too-many-asks",
            `${MAX_PENDING_ASKS} permission requests are already waiting for the person; ${action} was refused without asking. ` +
              "Make fewer calls at once (await them one by one) instead of retrying.",
          ),
        );
      }
      signal.addEventListener("abort", onAbort, { once: true });
      this.answers.set(request.id, (answer) => {
        signal.removeEventListener("abort", onAbort);
        remove(answer);
        resolve(answer);
      });
      const ask: PendingAsk = { ...request, ...this.position() };
      this.set({
        asks: [...this.state.asks, ask],
        askRecords: [...this.state.askRecords, { ask }].slice(-MAX_ASK_RECORDS),
      });
    });

  /** The person clicked Allow once, Always allow this host (or this tool), or Deny. */
  answer(askId: string, answer: AskAnswer): void {
    const ask = this.state.asks.find((item) => item.id === askId);
    const kind = ask && this.kinds.get(ask.capability);
    // Each ask has its own "always" button (a host for a request, the tool for a tool call): another kind's is refused.
    if (ask && answer !== "once" && answer !== "deny" && answer !== kind?.always) return;
    this.answers.get(askId)?.(answer);
    // The broker applied "always" already; the session keeps it as a grant.
    if (ask && kind && answer === kind.always) void this.persistGrant(kind.capability, kind.grant(ask));
  }

  /** Deny all (shown while more than one ask waits), and Stop: every ask on screen is denied, with the calls waiting behind them. */
  denyAll(): void {
    for (const ask of this.state.asks) this.answers.get(ask.id)?.("deny");
  }

  private async persistGrant(capability: string, key: string): Promise<void> {
    const { store, state } = this;
    if (!store || !state.sessionId) return;
    await addGrant(store, { sessionId: state.sessionId, capability, host: key, grantedAt: this.now() }).catch(
      () => undefined,
    );
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /**
   * What outside content reached the code since the last call (a network
   * response, a chosen file), for the feedback's untrusted label; then forget it.
   */
  takeUntrusted = (): string | undefined => {
    if (this.untrusted.length === 0) return undefined;
    const sources = [...new Set(this.untrusted)];
    this.untrusted = [];
    return sources.slice(0, 5).join("; ") + (sources.length > 5 ? `; and ${sources.length - 5} more` : "");
  };

  /** Outside content reached the code (a capability's response, a tool's result): the next feedback says so. */
  noteUntrusted = (source: string): void => {
    this.untrusted.push(source);
  };

  /** One line of the audit list, kept with the open session. */
  record = (entry: AuditInput): void => {
    const sessionId = this.state.sessionId;
    const full: AuditEntry = { ...entry, sessionId: sessionId ?? "" };
    this.set({ audit: [...this.state.audit, full] });
    if (this.store && sessionId) void addAuditEntry(this.store, { ...entry, sessionId }).catch(() => undefined);
  };

  /** Strict mode is the session's: every capability asks for every call (each installed module hears of it). Saved with the session. */
  setStrict(strict: boolean): void {
    this.set({ strict });
    for (const [, capability] of this.installed) capability.setStrict?.(strict);
    const { store, state } = this;
    if (store && state.sessionId) void updateSessionRules(store, state.sessionId, { strict }).catch(() => undefined);
  }

  /** A mounted file input (src/render/fileChooser.ts): the person's choice is the consent. */
  readonly fileChooser: FileChooser = {
    register: (file) => {
      const handle = crypto.randomUUID();
      this.chosenFiles.set(handle, file);
      this.record({
        at: this.now(),
        capability: "file",
        method: "CHOOSE",
        url: file.name,
        decision: "chosen",
        bytes: file.size,
        result: "ok",
      });
      const chosen: ChosenFile = {
        handle,
        name: file.name,
        size: file.size,
        type: file.type,
        lastModified: file.lastModified,
      };
      return chosen;
    },
  };

  /** FILE_READ: the bytes of a chosen file, by its handle, within the size limit. */
  readonly fileReadService: HostService = async (payload) => {
    const handle = (payload as { handle?: unknown } | null)?.handle;
    const file = typeof handle === "string" ? this.chosenFiles.get(handle) : undefined;
    if (!file)
      throw new HostServiceError(
        "not-found",
        "no such chosen file (files are handed over only when the person picks them, and only in this session)",
      );
    if (file.size > MAX_FILE_BYTES) {
      throw new HostServiceError(
        "too-large",
        `the file “${file.name}” is ${(file.size / 1024 / 1024).toFixed(1)} MB; files up to ${MAX_FILE_BYTES / 1024 / 1024} MB can be handed to code`,
      );
    }
    const answer: FileReadResponse = { body: bytesToBase64(new Uint8Array(await file.arrayBuffer())) };
    this.untrusted.push(`a file the person chose: ${file.name}`);
    return answer as unknown as JsonValue;
  };

  /** FILE_OFFER: `download(...)` in the realm, in parts; the last part shows the Save button. */
  readonly fileOfferService: HostService = (payload): JsonValue => {
    const input = payload as Partial<Record<keyof FileOfferPayload, unknown>> | null;
    const { offer, part, parts, name, mimeType, size, body } = input ?? {};
    if (
      typeof offer !== "string" ||
      typeof part !== "number" ||
      typeof parts !== "number" ||
      typeof name !== "string" ||
      typeof mimeType !== "string" ||
      typeof size !== "number" ||
      typeof body !== "string" ||
      !Number.isInteger(part) ||
      part < 0 ||
      part >= parts
    ) {
      throw new HostServiceError("invalid", "download: malformed offer");
    }
    if (size > MAX_DOWNLOAD_BYTES)
      throw new HostServiceError(
        "too-large",
        `download: files up to ${MAX_DOWNLOAD_BYTES / 1024 / 1024} MB can be offered`,
      );
    const progress =
      part === 0 ? { name, mimeType, size, parts: [] as Uint8Array[] } : this.offersInProgress.get(offer);
    if (!progress || progress.parts.length !== part)
      throw new HostServiceError("invalid", "download: parts out of order");
    let bytes: Uint8Array;
    try {
      bytes = base64ToBytes(body);
    } catch {
      throw new HostServiceError("invalid", "download: a part is not base64");
    }
    progress.parts.push(bytes);
    this.offersInProgress.set(offer, progress);
    const received = progress.parts.reduce((total, item) => total + item.length, 0);
    if (received > progress.size) throw new HostServiceError("invalid", "download: more bytes than announced");
    if (part < parts - 1) return { received };
    this.offersInProgress.delete(offer);
    const data = new Uint8Array(received);
    let offset = 0;
    for (const item of progress.parts) {
      data.set(item, offset);
      offset += item.length;
    }
    this.offerDownload({ name: progress.name, mimeType: progress.mimeType, data });
    return { offered: true, size: received };
  };

  /** `download(...)` in the realm: shown in the timeline with a Save button. */
  offerDownload(file: { name: string; mimeType: string; data: Uint8Array }): PendingDownload {
    const offer: PendingDownload = {
      id: crypto.randomUUID(),
      name: file.name,
      mimeType: file.mimeType,
      size: file.data.length,
      saved: false,
      data: file.data,
      ...this.position(),
    };
    this.set({ downloads: [...this.state.downloads, offer] });
    this.record({
      at: this.now(),
      capability: "file",
      method: "DOWNLOAD",
      url: file.name,
      decision: "offered",
      bytes: file.data.length,
      result: "ok",
    });
    return offer;
  }

  /** The person clicked Save: only now does a file leave the page. */
  saveDownload(id: string, save: (name: string, data: Uint8Array, mimeType: string) => void): void {
    const offer = this.state.downloads.find((item) => item.id === id);
    if (!offer) return;
    save(offer.name, offer.data, offer.mimeType);
    this.set({ downloads: this.state.downloads.map((item) => (item.id === id ? { ...item, saved: true } : item)) });
    this.record({
      at: this.now(),
      capability: "file",
      method: "DOWNLOAD",
      url: offer.name,
      decision: "saved",
      bytes: offer.size,
      result: "ok",
    });
  }
}
