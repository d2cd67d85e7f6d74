/**
 * The system prompt's examples are a contract: each one runs through the real
 * protocol parser, executor and UI runtime without errors, and does what the
 * prompt says it does (logs, mounts, waits for a form, reacts to a click).
 */
import { describe, expect, it } from "vitest";
import { PROMPT_EXAMPLES, SYSTEM_PROMPT } from "../src/capabilities/prompt";
import { MOUNT_FRAME_MS, MOUNT_OPEN, MOUNT_OPS, MOUNT_WAITING, type MountRealmMessage } from "../src/wire/mount";
import { createSession } from "./runReply";
import { createShortClock, createVirtualClock } from "./virtualClock";
import { createFakeCapabilityHost } from "./fakeCapabilityHost";
import { UI_EVENT } from "../src/wire/mount";

/** The page's capabilities, answering the fetch example with what the prompt says it gets. */
const capabilityHost = () =>
  createFakeCapabilityHost((request) =>
    request.url.startsWith("https://api.frankfurter.app/")
      ? { body: JSON.stringify({ amount: 1, base: "EUR", date: "2026-12-01", rates: { USD: 1.08 } }) }
      : { error: { code: "denied", message: `The person denied this request: ${request.method} ${request.url}.` } },
  );

/** The example that contains `marker` (each example is found by what it does, not by its index). */
function example(marker: string): string {
  const found = PROMPT_EXAMPLES.filter((text) => text.includes(marker));
  if (found.length !== 1) throw new Error(`expected one example with ${marker}, found ${found.length}`);
  return found[0];
}

const opened = (messages: MountRealmMessage[]) =>
  messages.filter(
    (message): message is Extract<MountRealmMessage, { type: "mount"; kind: "open" }> => message.kind === MOUNT_OPEN,
  );

describe("system prompt examples", () => {
  it("are all embedded in the prompt", () => {
    expect(PROMPT_EXAMPLES.length).toBeGreaterThan(0);
    for (const text of PROMPT_EXAMPLES) expect(SYSTEM_PROMPT).toContain(text);
  });

  it.each(PROMPT_EXAMPLES.map((text, index) => [index, text] as const))(
    "example %i runs through the real parser, executor and UI runtime without errors",
    async (_, text) => {
      const session = createSession({ timers: createVirtualClock(), requests: capabilityHost().requests });
      const running = session.run(text, 3);
      // A form example waits for the person: submit valid values once it asks.
      void session.host
        .waitFor((message) => message.kind === MOUNT_WAITING && message.waiting, 5_000)
        .then((message) =>
          session.ui.handleUiEvent(
            session.host.submitEvent(message.mountId, { city: "Lisbon", days: "4", hotel: true }),
          ),
        )
        .catch(() => undefined);
      const result = await running;
      expect(result.protocolErrors).toEqual([]);
      expect(result.errors).toEqual([]);
      for (const mount of session.host.mounts.values()) {
        expect(mount.error, mount.mountId).toBeNull();
        expect(session.host.drawProblems(mount.mountId)).toEqual([]);
      }
      const mounts = opened(result.mountMessages).length;
      // Every example either logs (to continue) or mounts a UI (and hands over the turn).
      expect(result.logs.length + mounts).toBeGreaterThan(0);
    },
  );

  it("prints what the prompt says it prints", async () => {
    const session = createSession({ timers: createVirtualClock() });
    const first = await session.run(PROMPT_EXAMPLES[0]);
    expect(first.logs).toEqual(["words per title: [ 1, 5, 1 ]"]);
    const second = await session.run(PROMPT_EXAMPLES[1]);
    expect(second.logs).toEqual(["step 1: load", "step 2: clean", "step 3: summarise"]);
  });

  it("form: mounts a form, waits for the person, validates, then the code continues and logs the values", async () => {
    const session = createSession({ timers: createVirtualClock() });
    const running = session.run(example("tripForm"));
    const waiting = await session.host.waitFor((message) => message.kind === MOUNT_WAITING && message.waiting);
    const { mountId } = waiting;
    const types = session.host.types(mountId);
    expect(types).toEqual(expect.arrayContaining(["form", "Label", "Input", "Checkbox", "Button"]));
    expect(session.host.mount(mountId).title).toBe("Plan a trip");
    const fields = session.host
      .findAll(mountId, (node) => typeof node.props.name === "string")
      .map((node) => node.props.name);
    expect(fields).toEqual(["city", "days", "hotel"]);

    // Invalid: the errors go to the fields and the code keeps waiting.
    expect(session.ui.handleUiEvent(session.host.submitEvent(mountId, { city: "", days: "40", hotel: false }))).toBe(
      true,
    );
    await expect.poll(() => Object.keys(session.host.mount(mountId).formErrors).sort()).toEqual(["city", "days"]);
    expect(session.host.mount(mountId).formErrors.city).toBe("Where to?");
    expect(session.host.mount(mountId).waiting).toBe(true);
    expect(session.since(0).logs).toEqual([]);

    session.ui.handleUiEvent(session.host.submitEvent(mountId, { city: "Lisbon", days: "4", hotel: true }));
    const result = await running;
    expect(result.errors).toEqual([]);
    expect(result.logs).toEqual(["trip: { city: 'Lisbon', days: 4, hotel: true }"]);
    expect(session.host.mount(mountId).waiting).toBe(false);
  });

  it("Data: the progress panel mounts at once and later statements move it to the end", async () => {
    // Real time: the stages in between reach the page as frames only if the example's sleeps outlast a frame
    // (a frame is MOUNT_FRAME_MS); cut to four frames each, they still do.
    const session = createSession({ timers: createShortClock(4 * MOUNT_FRAME_MS) });
    const result = await session.run(example("new Data("));
    expect(result.errors).toEqual([]);
    expect(result.logs).toEqual(["import finished: 3 steps"]);
    const [open] = opened(result.mountMessages);
    expect(open.title).toBe("Import");
    expect(open.snapshot.nodes[0]).toMatchObject({ type: "Card" });
    expect(session.host.html(open.mountId)).toBe(
      '<Card className="p-4 grid gap-2"><p className="text-sm">index: 3 of 3</p><Progress value=100></Progress></Card>',
    );
    // It moved through the stages in between, as ops after the first snapshot.
    expect(result.mountMessages.filter((message) => message.kind === MOUNT_OPS).length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(open.snapshot)).toContain("starting");
  });

  it("StreamedData: the chart mounts before the data fence, grows while it streams, and the code reads the whole value", async () => {
    const session = createSession({ timers: createVirtualClock() });
    const seen: number[] = [];
    session.host.subscribe((message) => {
      const [chart] = session.host.findAll(message.mountId, (node) => node.type === "LineChart");
      if (chart && Array.isArray(chart.props.data)) seen.push(chart.props.data.length);
    });
    const result = await session.run(example("new StreamedData("), 4, 5);
    expect(result.errors).toEqual([]);
    expect(result.logs).toEqual(["best month: Feb"]);
    const [open] = opened(result.mountMessages);
    expect(open.title).toBe("Monthly sales");
    const firstChart = open.snapshot.nodes[0];
    expect(firstChart).toMatchObject({ type: "LineChart", props: { data: [] } });
    const [chart] = session.host.findAll(open.mountId, (node) => node.type === "LineChart");
    expect(chart.props.data).toEqual([
      { month: "Jan", total: 1200 },
      { month: "Feb", total: 1850 },
      { month: "Mar", total: 1640 },
    ]);
    expect(session.host.types(open.mountId)).toEqual(["LineChart", "XAxis", "YAxis", "Tooltip", "Line"]);
    // The person saw it grow: the page got the rows one frame at a time, never fewer than before.
    expect(seen).toEqual([...seen].sort((x, y) => x - y));
    expect(new Set(seen).size).toBeGreaterThanOrEqual(3);
  });

  it("callbacks: nothing is logged until a click; the click's output is what the prompt says", async () => {
    const session = createSession({ timers: createVirtualClock() });
    const result = await session.run(example("callbacks:"));
    expect(result.errors).toEqual([]);
    expect(result.logs).toEqual([]);
    const [open] = opened(result.mountMessages);
    expect(open.title).toBe("Deploy v2?");
    const before = session.events.length;
    expect(session.ui.handleUiEvent(session.host.clickEvent(open.mountId, "Approve"))).toBe(true);
    await expect.poll(() => session.since(before)).toEqual({ logs: ["deploy: approved"], errors: [] });
    expect(SYSTEM_PROMPT).toContain("a click prints `deploy: approved`");
  });

  it("slots: the shell shows skeletons first, then each slot fills", async () => {
    const session = createSession({ timers: createVirtualClock() });
    const result = await session.run(example("<Slot"));
    expect(result.errors).toEqual([]);
    const [open] = opened(result.mountMessages);
    expect(open.snapshot.nodes[0]).toMatchObject({ type: "div" });
    expect(JSON.stringify(open.snapshot).match(/"Skeleton"/g)).toHaveLength(2);
    expect(session.host.types(open.mountId)).toEqual(["div", "Badge", "BarChart", "XAxis", "YAxis", "Bar"]);
    expect(session.host.html(open.mountId)).toContain("<Badge>3 people, 20 tasks</Badge>");
  });

  it("fetch: asks the host, reads the JSON, logs it; a denial is caught and reported", async () => {
    const host = capabilityHost();
    const session = createSession({ timers: createVirtualClock(), requests: host.requests });
    const result = await session.run(example("fetch("));
    expect(result.errors).toEqual([]);
    expect(host.fetched).toMatchObject([
      { method: "GET", url: "https://api.frankfurter.app/latest?from=EUR&to=USD", body: null },
    ]);
    expect(result.logs).toEqual(["{ USD: 1.08 }"]);

    const denied = createSession({
      timers: createVirtualClock(),
      requests: createFakeCapabilityHost(() => ({
        error: { code: "denied", message: "The person denied this request: GET x." },
      })).requests,
    });
    const refused = await denied.run(example("fetch("));
    expect(refused.errors).toEqual([]);
    expect(refused.logs).toEqual(["fetch failed: The person denied this request: GET x."]);
  });

  it("file input: the chosen file reaches the handler, which reads and summarises it", async () => {
    const host = capabilityHost();
    const session = createSession({ timers: createVirtualClock(), requests: host.requests });
    const result = await session.run(example('type="file"'));
    expect(result.errors).toEqual([]);
    expect(result.logs).toEqual([]);
    const [open] = opened(result.mountMessages);
    const [input] = session.host.findAll(open.mountId, (node) => node.type === "input");
    expect(input.props.type).toBe("file");
    const before = session.events.length;
    const file = host.choose("sales.csv", "month,sales\nJan,12\nFeb,19\n");
    expect(
      session.ui.handleUiEvent({
        type: UI_EVENT,
        mountId: open.mountId,
        nodeId: input.id,
        handler: "onChange",
        payload: { files: [file] },
      }),
    ).toBe(true);
    await expect.poll(() => session.since(before).logs).toEqual(["sales.csv: 2 rows; header month,sales"]);
  });

  it("download: offers the file to the host and logs the offer", async () => {
    const host = capabilityHost();
    const session = createSession({ timers: createVirtualClock(), requests: host.requests });
    const result = await session.run(example("download("));
    expect(result.errors).toEqual([]);
    expect(result.logs).toEqual(["offered trips.csv 25 bytes"]);
    expect(host.offered).toEqual([{ name: "trips.csv", mimeType: "text/csv", text: "city,days\nLisbon,4\nOslo,2" }]);
  });

  it("app data: the count and the notes a click kept are there for the next realm of the session", async () => {
    const host = capabilityHost();
    const first = createSession({ requests: host.requests });
    const result = await first.run(example("useStored("));
    expect(result.errors).toEqual([]);
    const [open] = opened(result.mountMessages);
    expect(open.title).toBe("Visit 1");
    await expect.poll(() => first.host.html(open.mountId)).toContain("Notes kept: 0");
    first.ui.handleUiEvent(first.host.clickEvent(open.mountId));
    await expect.poll(() => first.host.html(open.mountId)).toContain("Notes kept: 1");
    await expect.poll(() => host.appData.getState().keys.map((entry) => entry.key)).toEqual(["notes", "visits"]);

    // A fresh realm (a reload, a reset): what the session kept comes back.
    const second = createSession({ requests: host.requests });
    const again = await second.run(example("useStored("));
    expect(again.errors).toEqual([]);
    const [reopened] = opened(again.mountMessages);
    expect(reopened.title).toBe("Visit 2");
    await expect.poll(() => second.host.html(reopened.mountId)).toContain("Notes kept: 1");
  });

  it("run one after another in one realm (distinct names)", async () => {
    const session = createSession({ timers: createVirtualClock(), requests: capabilityHost().requests });
    void session.host
      .waitFor((message) => message.kind === MOUNT_WAITING && message.waiting)
      .then((message) =>
        session.ui.handleUiEvent(session.host.submitEvent(message.mountId, { city: "Oslo", days: "2", hotel: false })),
      );
    for (const text of PROMPT_EXAMPLES) {
      const result = await session.run(text, 7);
      expect(result.errors).toEqual([]);
    }
  });
});
