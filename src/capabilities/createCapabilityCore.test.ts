/**
 * One ask per scope (issue 32): calls to a host already asked about wait
 * behind that ask and take its answer — a deny denies them all, an
 * "always" lets them through, a one-time grant covers only the call that
 * asked (the next one asks). Exercised through the network broker with a
 * fake fetch and a scripted person.
 */
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../wire/mount";
import { HostServiceError } from "../sandbox/HostServiceError";
import { MAX_WAITING_PER_ASK } from "./createCapabilityCore";
import { createNetworkBroker, type NetworkAuditRecord, type PermissionAsk } from "./network/createNetworkBroker";
import type { PersonAnswer } from "./network/networkPolicy";

function setUp(options: { refuseAsk?: HostServiceError } = {}) {
  const asks: { request: PermissionAsk; answer(answer: PersonAnswer): void }[] = [];
  const audit: NetworkAuditRecord[] = [];
  const fetched: string[] = [];
  let id = 0;
  const broker = createNetworkBroker({
    ask: (request) =>
      options.refuseAsk
        ? Promise.reject(options.refuseAsk)
        : new Promise<PersonAnswer>((resolve) => asks.push({ request, answer: resolve })),
    audit: (record) => void audit.push(record),
    fetch: async (input) => {
      fetched.push(String(input));
      return new Response("ok", { status: 200 });
    },
    sha256: async () => "hash",
    newId: () => `id-${(id += 1)}`,
  });
  const call = (url: string, signal = new AbortController().signal) => {
    const result = Promise.resolve(
      broker.service({ url, method: "GET", headers: [], body: null } as unknown as JsonValue, {
        signal,
        service: "net.fetch",
      }),
    );
    // Handled: each test looks at the outcome when it means to.
    result.catch(() => undefined);
    return result;
  };
  /** The person has been asked `count` times (the calls behind an ask are never asked while it waits). */
  const asked = (count: number) => expect.poll(() => asks.length).toBe(count);
  return { broker, asks, audit, fetched, call, asked };
}

const codeOf = (result: PromiseSettledResult<unknown>) =>
  result.status === "rejected" ? (result.reason as HostServiceError).code : "ok";

describe("one ask per host", () => {
  it("50 calls to one host ask once; Deny denies all of them, each with its own audit line", async () => {
    const { asks, audit, fetched, call, asked } = setUp();
    const calls = Array.from({ length: 50 }, (_, index) => call(`https://api.example/item/${index}`));
    await asked(1);
    expect(asks.map((ask) => ask.request.url)).toEqual(["https://api.example/item/0"]);
    asks[0].answer("deny");
    const results = await Promise.allSettled(calls);
    expect(results.map(codeOf)).toEqual(Array(50).fill("denied"));
    expect(asks).toHaveLength(1);
    expect(fetched).toEqual([]);
    expect(audit.filter((record) => record.decision === "denied")).toHaveLength(50);
  });

  it("Always allow this host lets the waiting calls through without asking", async () => {
    const { asks, fetched, call, asked } = setUp();
    const calls = Array.from({ length: 5 }, (_, index) => call(`https://api.example/item/${index}`));
    await asked(1);
    asks[0].answer("host");
    expect((await Promise.allSettled(calls)).map(codeOf)).toEqual(Array(5).fill("ok"));
    expect(asks).toHaveLength(1);
    expect(fetched).toHaveLength(5);
  });

  it("Allow once covers only the call that asked: the next waiting call asks next, one at a time", async () => {
    const { asks, fetched, call, asked } = setUp();
    const first = call("https://api.example/a");
    const second = call("https://api.example/a");
    const third = call("https://api.example/b");
    await asked(1);
    asks[0].answer("once");
    await expect(first).resolves.toBeTruthy();
    await asked(2);
    expect(asks[1].request.url).toBe("https://api.example/a");
    asks[1].answer("deny");
    await expect(second).rejects.toMatchObject({ code: "denied" });
    // The deny was the answer about the second call: the third waited behind it, so it is denied too.
    await expect(third).rejects.toMatchObject({ code: "denied" });
    expect(asks).toHaveLength(2);
    expect(fetched).toEqual(["https://api.example/a"]);
  });

  it("other hosts ask at once, side by side", async () => {
    const { asks, call, asked } = setUp();
    void call("https://one.example/");
    void call("https://two.example/");
    void call("https://one.example/again");
    await asked(2);
    expect(asks.map((ask) => ask.request.host)).toEqual(["one.example", "two.example"]);
  });

  it("a waiting call that ends (the code gave up, Stop) leaves the queue without asking", async () => {
    const { asks, call, asked } = setUp();
    const first = call("https://api.example/1");
    const cancel = new AbortController();
    const waiting = call("https://api.example/2", cancel.signal);
    await asked(1);
    cancel.abort();
    await expect(waiting).rejects.toMatchObject({ code: "aborted" });
    asks[0].answer("once");
    await first;
    expect(asks).toHaveLength(1);
  });

  it(`refuses a call when ${MAX_WAITING_PER_ASK} already wait behind one ask`, async () => {
    const { asks, audit, call, asked } = setUp();
    const calls = Array.from({ length: MAX_WAITING_PER_ASK + 2 }, (_, index) => call(`https://api.example/${index}`));
    const last = await Promise.allSettled([calls.at(-1)!]);
    expect(codeOf(last[0])).toBe("too-many-asks");
    expect(audit.filter((record) => record.result === "too-many-asks")).toHaveLength(1);
    asks[0].answer("deny");
    expect((await Promise.allSettled(calls.slice(0, -1))).map(codeOf)).toEqual(
      Array(MAX_WAITING_PER_ASK + 1).fill("denied"),
    );
  });

  it("an ask the page refuses to draw (too many waiting) refuses the call, recorded", async () => {
    const { audit, fetched, call } = setUp({
      refuseAsk: new HostServiceError("too-many-asks", "20 permission requests are already waiting"),
    });
    await expect(call("https://api.example/")).rejects.toMatchObject({ code: "too-many-asks" });
    expect(audit).toEqual([expect.objectContaining({ decision: "denied", result: "too-many-asks" })]);
    expect(fetched).toEqual([]);
  });
});
