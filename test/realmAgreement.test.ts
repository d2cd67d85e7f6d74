/**
 * The in-process realm the Node tests use behaves as the worker does
 * (workers/realm/index.ts wires the same parts; e2e/sandbox.test.ts runs the
 * malformed fence below in the browser).
 */
import { describe, expect, it } from "vitest";
import { createInProcessRealm } from "./inProcessRealm";
import type { RealmEvent } from "../src/agent/agent";

const CODE =
  'const part = new StreamedData("part");\npart.done.catch(() => "rejected").then((r) => console.log(r, JSON.stringify(part.value)));\n';
const DATA = ['[{"a": 1}, ', '{"a": 2},', "]\n"];

describe("in-process realm, malformed data fence", () => {
  it("logs the kept value from a `done.catch` waiter", async () => {
    const realm = createInProcessRealm();
    const events: RealmEvent[] = [];
    realm.subscribe((event) => void events.push(event));
    realm.beginReply();
    realm.sendBlock({ type: "block-start", index: 0, kind: "code", line: 1 });
    realm.sendBlock({ type: "block-delta", index: 0, text: CODE });
    realm.sendBlock({ type: "block-end", index: 0, unterminated: false });
    realm.sendBlock({ type: "block-start", index: 1, kind: "data", id: "part", line: 5 });
    for (const piece of DATA) realm.sendBlock({ type: "block-delta", index: 1, text: piece });
    realm.sendBlock({ type: "block-end", index: 1, unterminated: false });
    await realm.flush();
    const logs = () => events.flatMap((event) => (event.type === "console" ? [event.text] : []));
    await expect.poll(logs).toHaveLength(1);
    expect(logs()).toEqual(['rejected [{"a":1},{"a":2}]']);
    // The fence still reports what was wrong with it.
    expect(events.some((event) => JSON.stringify(event).includes("data-invalid"))).toBe(true);
  });

  it("lets a later `new StreamedData(id)` take the id over without an error, as the worker does", async () => {
    const realm = createInProcessRealm();
    const events: RealmEvent[] = [];
    realm.subscribe((event) => void events.push(event));
    realm.beginReply();
    realm.sendBlock({ type: "block-start", index: 0, kind: "code", line: 1 });
    realm.sendBlock({
      type: "block-delta",
      index: 0,
      text: 'const a = new StreamedData("rows");\nconst b = new StreamedData("rows");\nconsole.log("after");\n',
    });
    realm.sendBlock({ type: "block-end", index: 0, unterminated: false });
    await realm.flush();
    const errors = events.filter(
      (event) => event.type === "error" || (event.type === "statement-end" && event.status === "error"),
    );
    expect(errors).toEqual([]);
    expect(events.flatMap((event) => (event.type === "console" ? [event.text] : []))).toEqual(["after"]);
  });
});
