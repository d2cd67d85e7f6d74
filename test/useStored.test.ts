/**
 * `useStored` in generated UIs, through the real parser, executor and UI
 * runtime, with the page's real app data behind it (test/fakeCapabilityHost.ts):
 * every mount using a key shows the same value and re-renders when any of
 * them (or plain code) changes it, and a value JSON cannot keep is refused
 * in the handler that set it.
 */
import { describe, expect, it } from "vitest";
import { MOUNT_OPEN, type MountRealmMessage } from "../src/wire/mount";
import { STORAGE_ERASED } from "../src/wire/capabilities";
import { createFakeCapabilityHost } from "./fakeCapabilityHost";
import { createSession } from "./runReply";

const FENCE = "```";
const code = (body: string) => `${FENCE}tsx agent.run\n${body}\n${FENCE}\n`;

const mountIds = (messages: MountRealmMessage[]) =>
  messages.flatMap((message) => (message.type === "mount" && message.kind === MOUNT_OPEN ? [message.mountId] : []));

const COUNTER = (title: string) => `mount({ title: "${title}", ui: () => {
  const [count, setCount] = useStored("count", 0)
  return <Button onClick={() => setCount((n) => n + 1)}>count {count}</Button>
} })`;

describe("useStored", () => {
  it("shares one value between two mounts, re-renders both on a click in either and on storage.set", async () => {
    const host = createFakeCapabilityHost(() => ({ body: "" }));
    const session = createSession({ requests: host.requests });
    const result = await session.run(code(`${COUNTER("A")}\n${COUNTER("B")}`));
    expect(result.errors).toEqual([]);
    const [a, b] = mountIds(result.mountMessages);
    await expect.poll(() => [session.host.html(a), session.host.html(b)].join(" ")).toMatch(/count 0.*count 0/);
    session.ui.handleUiEvent(session.host.clickEvent(a));
    await expect.poll(() => session.host.html(b)).toContain("count 1");
    session.ui.handleUiEvent(session.host.clickEvent(b));
    await expect.poll(() => session.host.html(a)).toContain("count 2");
    const logged = await session.run(
      code(`await storage.set("count", 40)\nconsole.log("stored", await storage.get("count"))`),
    );
    expect(logged.logs).toEqual(["stored 40"]);
    await expect.poll(() => [session.host.html(a), session.host.html(b)].join(" ")).toMatch(/count 40.*count 40/);
    await expect.poll(() => host.appData.getState().keys).toEqual([{ key: "count", bytes: 7 }]);
  });

  it("a key a mount shows is read from the host again by storage.get: Erase app data is seen at once", async () => {
    const host = createFakeCapabilityHost(() => ({ body: "" }));
    const session = createSession({ requests: host.requests });
    const result = await session.run(code(COUNTER("A")));
    const [id] = mountIds(result.mountMessages);
    await expect.poll(() => session.host.html(id)).toContain("count 0");
    session.ui.handleUiEvent(session.host.clickEvent(id));
    await expect.poll(() => host.appData.getState().keys.map((entry) => entry.key)).toEqual(["count"]);
    await host.appData.erase();
    const read = await session.run(code(`console.log("after erase:", await storage.get("count"))`));
    expect(read.logs).toEqual(["after erase: undefined"]);
  });

  it("Erase app data tells the realm (storage.erased): a mount shows its initial value, and its next click does not bring the erased value back", async () => {
    const host = createFakeCapabilityHost(() => ({ body: "" }));
    const session = createSession({ requests: host.requests });
    const result = await session.run(code(COUNTER("A")));
    const [id] = mountIds(result.mountMessages);
    await expect.poll(() => session.host.html(id)).toContain("count 0");
    session.ui.handleUiEvent(session.host.clickEvent(id));
    session.ui.handleUiEvent(session.host.clickEvent(id));
    await expect.poll(() => session.host.html(id)).toContain("count 2");
    await expect.poll(() => host.appData.getState().keys.map((entry) => entry.key)).toEqual(["count"]);
    await host.appData.erase();
    const erased = session.realm.hostMethods.get(STORAGE_ERASED);
    expect(erased).toBeTypeOf("function");
    await erased!(null, { signal: new AbortController().signal } as never);
    await expect.poll(() => session.host.html(id)).toContain("count 0");
    session.ui.handleUiEvent(session.host.clickEvent(id));
    await expect.poll(() => session.host.html(id)).toContain("count 1");
    const read = await session.run(code(`console.log("kept:", await storage.get("count"))`));
    expect(read.logs).toEqual(["kept: 1"]);
  });

  it("refuses a value JSON cannot keep in the handler that set it, and keeps the old one", async () => {
    const host = createFakeCapabilityHost(() => ({ body: "" }));
    const session = createSession({ requests: host.requests });
    const result = await session.run(
      code(`mount({ title: "Due", ui: () => {
  const [due, setDue] = useStored("due", "none")
  return <Button onClick={() => setDue(new Date(0))}>due {String(due)}</Button>
} })`),
    );
    const [id] = mountIds(result.mountMessages);
    await expect.poll(() => session.host.html(id)).toContain("due none");
    const before = session.events.length;
    session.ui.handleUiEvent(session.host.clickEvent(id));
    await expect
      .poll(() => session.since(before).errors.join("\n"))
      .toMatch(/storage\.set\("due"\): value is a Date, which JSON does not keep as it is/);
    expect(session.host.html(id)).toContain("due none");
    expect(host.appData.getState().keys).toEqual([]);
  });
});
