/**
 * Opening a session's capabilities: its saved grants load from the store,
 * and what its code asks for or records meanwhile belongs to it. An ask
 * made while the grants load stays on screen, and the previous session's
 * grants never let anything through in that moment.
 */
import { describe, expect, it } from "vitest";
import type { AskKind } from "../capabilities/Capability";
import { installNetwork } from "../capabilities/network/installNetwork";
import { listGrants } from "../store/capabilities";
import { createSession, getSession, updateSessionRules, updateSessionSettings } from "../store/sessions";
import { openTestStore } from "../store/testSupport";
import { CapabilityController, MAX_PENDING_ASKS } from "./capabilityController";

async function setUp() {
  const store = await openTestStore();
  const controller = new CapabilityController({ agent: () => undefined });
  // The network module, as createApp installs it: it registers the kind of ask the tests below raise.
  controller.install("network", installNetwork({ person: controller }, { newId: () => "ask-1" }));
  return { store, controller };
}

const askFor = (host: string) => ({
  id: `ask-${host}`,
  capability: "network" as const,
  method: "GET",
  url: `https://${host}/`,
  host,
  bodySize: 0,
});

describe("CapabilityController.open", () => {
  it("keeps an ask the session's code makes while its grants load", async () => {
    const { store, controller } = await setUp();
    const session = await createSession(store);
    const opening = controller.open(session, store);
    const answer = controller.ask(askFor("api.example"), new AbortController().signal);
    await opening;
    expect(controller.getState().asks.map((ask) => ask.id)).toEqual(["ask-api.example"]);
    controller.answer("ask-api.example", "once");
    await expect(answer).resolves.toBe("once");
  });

  it("keeps an audit line recorded while the saved ones load, once", async () => {
    const { store, controller } = await setUp();
    const session = await createSession(store);
    const opening = controller.open(session, store);
    controller.record({ at: 5, capability: "network", method: "GET", url: "https://api.example/", decision: "denied" });
    await opening;
    expect(controller.getState().audit.map((entry) => `${entry.sessionId} ${entry.url}`)).toEqual([
      `${session.id} https://api.example/`,
    ]);
  });

  it("keeps a record of each ask for the timeline: waiting, then what the person answered or that the call ended", async () => {
    const { store, controller } = await setUp();
    await controller.open(await createSession(store), store);
    const outcome = () =>
      controller.getState().askRecords.map((record) => `${record.ask.id} ${record.outcome ?? "waiting"}`);
    const answered = controller.ask(askFor("a.example"), new AbortController().signal);
    const cancel = new AbortController();
    const ended = controller.ask(askFor("b.example"), cancel.signal);
    expect(outcome()).toEqual(["ask-a.example waiting", "ask-b.example waiting"]);
    controller.answer("ask-a.example", "deny");
    await expect(answered).resolves.toBe("deny");
    cancel.abort(new Error("the code gave up"));
    await expect(ended).rejects.toThrow("the code gave up");
    expect(outcome()).toEqual(["ask-a.example deny", "ask-b.example withdrawn"]);
    expect(controller.getState().asks).toEqual([]);
  });

  it(`draws at most ${MAX_PENDING_ASKS} asks; one more is refused without asking; Deny all denies every one`, async () => {
    const { store, controller } = await setUp();
    await controller.open(await createSession(store), store);
    const answers = Array.from({ length: MAX_PENDING_ASKS }, (_, index) =>
      controller.ask(askFor(`h${index}.example`), new AbortController().signal),
    );
    await expect(controller.ask(askFor("one-more.example"), new AbortController().signal)).rejects.toMatchObject({
      code: "too-many-asks",
    });
    expect(controller.getState().asks).toHaveLength(MAX_PENDING_ASKS);
    controller.denyAll();
    expect(await Promise.all(answers)).toEqual(Array(MAX_PENDING_ASKS).fill("deny"));
    expect(controller.getState().asks).toEqual([]);
    // Room again once answered.
    const next = controller.ask(askFor("later.example"), new AbortController().signal);
    expect(controller.getState().asks.map((ask) => ask.id)).toEqual(["ask-later.example"]);
    controller.denyAll();
    await expect(next).resolves.toBe("deny");
  });

  it("denies what the previous session was still asking", async () => {
    const { store, controller } = await setUp();
    await controller.open(await createSession(store), store);
    const answer = controller.ask(askFor("old.example"), new AbortController().signal);
    await controller.open(await createSession(store), store);
    await expect(answer).resolves.toBe("deny");
    expect(controller.getState().asks).toEqual([]);
  });
});

describe("one queue of asks of every kind", () => {
  /** A kind no file in src/session names: registered by its capability, queued like the others. */
  const storageAsk: AskKind<{ id: string; capability: "storage"; key: string }, "key"> = {
    capability: "storage",
    always: "key",
    action: (ask) => `STORE ${ask.key}`,
    refused: (ask) => `storing ${ask.key}`,
    covers: (ask) => ask.key,
    grant: (ask) => `key:${ask.key}`,
    View: () => null,
  };

  it('queues a new kind with the network\'s, answers it with its own "always" only, and saves its grant', async () => {
    const { store, controller } = await setUp();
    const session = await createSession(store);
    await controller.open(session, store);
    const askStorage = controller.asker(storageAsk);
    const stored = askStorage({ id: "s1", capability: "storage", key: "notes" }, new AbortController().signal);
    const fetched = controller.ask(askFor("api.example"), new AbortController().signal);
    expect(controller.getState().asks.map((ask) => `${ask.capability} ${ask.id}`)).toEqual([
      "storage s1",
      "network ask-api.example",
    ]);
    // Another kind's "always" is not an answer to it.
    controller.answer("s1", "host");
    controller.answer("ask-api.example", "key");
    expect(controller.getState().asks).toHaveLength(2);
    controller.answer("s1", "key");
    await expect(stored).resolves.toBe("key");
    await expect
      .poll(async () => (await listGrants(store, session.id)).map((grant) => `${grant.capability} ${grant.host}`))
      .toEqual(["storage key:notes"]);
    controller.denyAll();
    await expect(fetched).resolves.toBe("deny");
  });

  it("names a refused call in its kind's words", async () => {
    const { store, controller } = await setUp();
    await controller.open(await createSession(store), store);
    const askStorage = controller.asker(storageAsk);
    const waiting = Array.from({ length: MAX_PENDING_ASKS }, (_, index) =>
      controller.ask(askFor(`h${index}.example`), new AbortController().signal),
    );
    await expect(
      askStorage({ id: "s2", capability: "storage", key: "notes" }, new AbortController().signal),
    ).rejects.toThrow(
      `${MAX_PENDING_ASKS} permission requests are already waiting for the person; storing notes was refused without asking.`,
    );
    controller.denyAll();
    await Promise.all(waiting);
  });
});

describe("an installed capability module and the open session", () => {
  it("hears of each session that opens, with its own saved settings, and saves them with that session only", async () => {
    const { store, controller } = await setUp();
    const first = await createSession(store);
    const second = await createSession(store);
    const opened: (string | undefined)[] = [];
    const saved: unknown[] = [];
    let save: ((value: { mode: string }) => Promise<void>) | undefined;
    controller.install("made-up", {
      services: {},
      open: (session) => {
        opened.push(session?.session.id);
        saved.push(session?.saved);
        save = session?.save;
      },
    });
    await controller.open(first, store);
    await save!({ mode: "allowed" });
    await controller.open(second, store);
    await controller.open(await getSession(store, first.id), store);
    expect(opened).toEqual([first.id, second.id, first.id]);
    expect(saved).toEqual([undefined, undefined, { mode: "allowed" }]);
    // Network and tools settings saved later keep the module's.
    await updateSessionSettings(store, first.id, { network: "off", allowedHosts: [] });
    expect((await getSession(store, first.id))?.settings.capabilities).toEqual({ "made-up": { mode: "allowed" } });
    expect((await getSession(store, second.id))?.settings.capabilities).toBeUndefined();
  });

  it("waits for a module that loads, and a module that fails to load leaves the session working", async () => {
    const { store, controller } = await setUp();
    const session = await createSession(store);
    let loaded = false;
    controller.install("slow", {
      services: {},
      open: () => Promise.resolve().then(() => void (loaded = true)),
    });
    controller.install("broken", { services: {}, open: () => Promise.reject(new Error("no table")) });
    await controller.open(session, store);
    expect(loaded).toBe(true);
    expect(controller.getState().sessionId).toBe(session.id);
  });

  it("passes strict mode on to every module that asks", async () => {
    const { controller } = await setUp();
    const strict: boolean[] = [];
    controller.install("asker", { services: {}, setStrict: (value) => strict.push(value) });
    controller.setStrict(true);
    controller.setStrict(false);
    expect(strict).toEqual([true, false]);
  });

  it("saves strict mode with the open session, and hands it to each module when the session opens again", async () => {
    const { store, controller } = await setUp();
    const session = await createSession(store);
    const opened: (boolean | undefined)[] = [];
    controller.install("asker", { services: {}, open: (view) => void opened.push(view?.strict) });
    await controller.open(session, store);
    controller.setStrict(true);
    expect(controller.getState().strict).toBe(true);
    await expect.poll(async () => (await getSession(store, session.id))?.settings.strict).toBe(true);
    await controller.open(await createSession(store), store);
    expect(controller.getState().strict).toBe(false);
    await controller.open(await getSession(store, session.id), store);
    expect(controller.getState().strict).toBe(true);
    expect(opened).toEqual([false, false, true]);
    // Another rule saved alone keeps it.
    await updateSessionRules(store, session.id, { network: "off" });
    expect((await getSession(store, session.id))?.settings).toMatchObject({ network: "off", strict: true });
  });
});
