/**
 * The composer works before the person's sessions are open (IndexedDB may
 * take a while on a cold start): a message sent then waits, is shown as
 * sent, and goes to the session that opens. Nothing is lost, nothing is sent
 * twice, and Stop takes it back.
 */
import { IDBFactory } from "fake-indexeddb";
import "fake-indexeddb/auto";
import { beforeEach, describe, expect, it } from "vitest";
import type { Agent, ChatMessage } from "../agent/agent";
import type { Attachment } from "../agent/attachments";
import { createSession, saveMessages } from "../store/sessions";
import { openStore } from "../store/store";
import { conversation } from "../store/testSupport";
import { SessionController } from "./sessionController";
import { idleAgent } from "./testAgent";

interface Sent {
  agent: number;
  messages: number;
  text: string;
  attachments: readonly Attachment[];
}

/** Just what the controller asks of an agent, recording what it was sent. */
function agents() {
  const sent: Sent[] = [];
  let made = 0;
  const makeAgent = (messages: ChatMessage[]): Agent => {
    const id = ++made;
    return Object.assign(idleAgent(messages), {
      send: async (text: string, attachments: readonly Attachment[] = []) =>
        void sent.push({ agent: id, messages: messages.length, text, attachments }),
    });
  };
  return { sent, makeAgent };
}

const file: Attachment = { name: "notes.txt", mediaType: "text/plain", size: 5, data: "aGVsbG8=" };

describe("SessionController: sending while the sessions open", () => {
  beforeEach(() => {
    // A fresh browser profile for each case.
    globalThis.indexedDB = new IDBFactory();
  });

  it("keeps a message sent before the first session opened and sends it there once, with its files", async () => {
    const { sent, makeAgent } = agents();
    const controller = new SessionController({ realm: { reset: async () => undefined }, makeAgent });
    expect(controller.getState().starting).toBe(true);
    const starting = controller.start();
    expect(controller.sendWhenOpen("Compute some primes", [file])).toBe(true);
    // Shown as waiting, not yet sent.
    expect(controller.getState().queued?.text).toBe("Compute some primes");
    expect(sent).toEqual([]);
    // A second message cannot overtake or join the first.
    expect(controller.sendWhenOpen("and again")).toBe(false);
    await starting;
    const state = controller.getState();
    expect(state.starting).toBe(false);
    expect(state.queued).toBeUndefined();
    expect(state.current).toBeDefined();
    expect(sent).toEqual([{ agent: 1, messages: 0, text: "Compute some primes", attachments: [file] }]);
    // Once a session is open, sending is its agent's business.
    expect(controller.sendWhenOpen("later")).toBe(false);
    expect(sent).toHaveLength(1);
  });

  it("sends it to the session the page opens: the latest one, with its history", async () => {
    const opened = await openStore();
    if (!opened.ok) throw new Error("store did not open");
    const session = await createSession(opened.store, { title: "Yesterday" });
    await saveMessages(opened.store, session.id, conversation(2));
    opened.store.db.close();
    const { sent, makeAgent } = agents();
    const controller = new SessionController({ realm: { reset: async () => undefined }, makeAgent });
    const starting = controller.start();
    controller.sendWhenOpen("one more thing");
    await starting;
    expect(controller.getState().current?.title).toBe("Yesterday");
    expect(sent).toEqual([{ agent: 1, messages: 2, text: "one more thing", attachments: [] }]);
  });

  it("Stop before the session opened takes the message back: nothing is sent", async () => {
    const { sent, makeAgent } = agents();
    const controller = new SessionController({ realm: { reset: async () => undefined }, makeAgent });
    const starting = controller.start();
    controller.sendWhenOpen("never mind", [file]);
    const taken = controller.takeQueued();
    expect(taken).toMatchObject({ text: "never mind", attachments: [file] });
    expect(controller.getState().queued).toBeUndefined();
    await starting;
    expect(sent).toEqual([]);
    expect(controller.takeQueued()).toBeUndefined();
  });
});
