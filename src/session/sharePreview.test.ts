/**
 * A share link is readable before import (issue 33 §2): the controller shows
 * its messages read-only and writes nothing; Import writes that one session,
 * Dismiss opens the sessions as usual; neither leaves an empty "New session".
 */
import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
import { createShareLink } from "../store/share";
import { createSession, saveMessages } from "../store/sessions";
import { conversation, openTestStore } from "../store/testSupport";
import { DEFAULT_TITLE } from "../store/types";
import { SessionController } from "./sessionController";
import { idleAgent } from "./testAgent";

async function shareLink(title: string): Promise<string> {
  const store = await openTestStore();
  const session = await createSession(store, { title });
  await saveMessages(store, session.id, conversation(3));
  const link = await createShareLink(store, session.id, "http://127.0.0.1:5173/");
  if (!link.ok) throw new Error(link.error.message);
  return link.url;
}

// One database for the file (fake-indexeddb/auto), as one browser's: the tests run in order.
describe("a share link's preview", () => {
  it("shows the conversation read-only, writes nothing, and Import leaves exactly that session", async () => {
    const href = await shareLink("Shared plan");
    const controller = new SessionController({ realm: { reset: async () => undefined }, makeAgent: idleAgent, href });
    await controller.start();
    let state = controller.getState();
    expect(state.preview?.session.title).toBe("Shared plan");
    expect(state.readOnly).toBe(true);
    expect(state.current).toBeUndefined();
    const shown = state.agent!.getState().messages;
    expect(shown.map((message) => message.text)).toEqual(conversation(3).map((message) => message.text));
    expect(shown.every((message) => message.imported)).toBe(true);
    // A fresh visitor: nothing was written, not even an empty session.
    expect(state.sessions).toEqual([]);

    await controller.importPreview();
    state = controller.getState();
    expect(state.preview).toBeUndefined();
    expect(state.sessions.map((session) => session.title)).toEqual(["Shared plan"]);
    expect(state.current?.title).toBe("Shared plan");
    expect(state.readOnly).toBe(false);
  });

  it("Dismiss opens the sessions as any start does, creating nothing when there are some", async () => {
    const href = await shareLink("Not kept");
    const controller = new SessionController({ realm: { reset: async () => undefined }, makeAgent: idleAgent, href });
    await controller.start();
    expect(controller.getState().preview?.session.title).toBe("Not kept");
    await controller.dismissPreview();
    const state = controller.getState();
    expect(state.preview).toBeUndefined();
    expect(state.current?.title).toBe("Shared plan");
    expect(state.sessions.map((session) => session.title)).toEqual(["Shared plan"]);
    expect(state.sessions.some((session) => session.title === DEFAULT_TITLE)).toBe(false);
  });
});
