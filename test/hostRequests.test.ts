/**
 * Realm → host requests end to end over a real MessageChannel: the host's
 * connection (src/sandbox) with an echo-style test service on one port, the
 * realm's serveRealm on the other. Every way a request can end — answered,
 * timed out, cancelled by Stop, ended by a realm reset, withdrawn by the
 * realm — leaves nothing pending on either side. The same mechanism carries
 * the host's FLUSH and ABORT the other way, and neither end takes an answer
 * it is not owed.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createRealmConnection } from "../src/sandbox/createRealmConnection";
import { HostServiceError } from "../src/sandbox/HostServiceError";
import { RealmHostError } from "../src/sandbox/RealmHostError";
import type { HostService } from "../src/sandbox/types";
import { HostRequestError } from "../workers/realm/runtime/createHostRequests";
import { createRealm } from "../workers/realm/createRealm";
import { ABORT, CALL, CANCEL, FLUSH, RESULT } from "../src/wire/constants";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A host service that never answers by itself; it records how its signal ended. */
function hangingService() {
  const seen: { aborted: boolean; reason?: unknown }[] = [];
  const service: HostService = (_payload, { signal }) =>
    new Promise((_resolve, reject) => {
      const record = { aborted: false as boolean, reason: undefined as unknown };
      seen.push(record);
      signal.addEventListener("abort", () => {
        record.aborted = true;
        record.reason = signal.reason;
        reject(signal.reason);
      });
    });
  return { service, seen };
}

function connect(services: Record<string, HostService>) {
  const channel = new MessageChannel();
  let id = 0;
  const invalid: string[] = [];
  const connection = createRealmConnection({
    port: channel.port1,
    nextId: () => ++id,
    service: (name) => services[name],
    handlers: {
      onReady() {},
      onEvent() {},
      onMount() {},
      onUnresponsive() {},
      onClosed() {},
      onInvalid: (reason) => void invalid.push(reason),
    },
  });
  // The realm the worker runs (no code is sent), served on the other port.
  const realm = createRealm().serve(channel.port2);
  cleanups.push(() => {
    connection.close(new RealmHostError("disposed", "test over"));
    channel.port2.close();
  });
  return { connection, realm, invalid, channel };
}

/** The host's connection alone: the test posts on the realm's port by hand, as code holding it could. */
function bareHost(services: Record<string, HostService> = {}) {
  const channel = new MessageChannel();
  let id = 0;
  const invalid: string[] = [];
  const toRealm: { type: string; id?: number; method?: string }[] = [];
  channel.port2.onmessage = (event) => void toRealm.push(event.data);
  const connection = createRealmConnection({
    port: channel.port1,
    nextId: () => ++id,
    service: (name) => (Object.hasOwn(services, name) ? services[name] : undefined),
    handlers: {
      onReady() {},
      onEvent() {},
      onMount() {},
      onUnresponsive() {},
      onClosed() {},
      onInvalid: (reason) => void invalid.push(reason),
    },
  });
  cleanups.push(() => {
    connection.close(new RealmHostError("disposed", "test over"));
    channel.port2.close();
  });
  return { connection, realmPort: channel.port2, invalid, toRealm };
}

/** Settles (value or error), or says it is still pending after the port had time to carry an answer. */
async function outcome<T>(promise: Promise<T>, ms = 1_000): Promise<{ value?: T; error?: unknown; pending?: true }> {
  return Promise.race([
    promise.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    new Promise<{ pending: true }>((resolve) => setTimeout(() => resolve({ pending: true }), ms)),
  ]);
}

async function eventually(check: () => void, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

describe("realm → host requests", () => {
  it("answered: a host service looks like an async function in the realm", async () => {
    const { connection, realm, invalid } = connect({
      echo: (payload) => ({ echoed: payload }),
      "echo.slow": async (payload) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return payload;
      },
    });
    const echo = realm.requests.service<{ text: string }, { echoed: { text: string } }>("echo");
    await expect(echo({ text: "hi" })).resolves.toEqual({ echoed: { text: "hi" } });
    await expect(realm.requests.request("echo.slow", [1, "two", null])).resolves.toEqual([1, "two", null]);
    expect(realm.requests.inFlight()).toBe(0);
    expect(connection.serviceRequestsInFlight()).toBe(0);
    expect(invalid).toEqual([]);
  });

  it("a service's own error code and message reach the realm; an unknown service is refused", async () => {
    const { realm, connection } = connect({
      denied: () => {
        throw new HostServiceError("denied", "the person said no");
      },
      broken: () => {
        throw new Error("boom");
      },
    });
    const denied = await outcome(realm.requests.request("denied", null));
    expect(denied.error).toBeInstanceOf(HostRequestError);
    expect(denied.error).toMatchObject({ code: "denied", message: "the person said no" });
    expect((await outcome(realm.requests.request("broken", null))).error).toMatchObject({
      code: "failed",
      message: "boom",
    });
    expect((await outcome(realm.requests.request("nope", null))).error).toMatchObject({ code: "unknown-service" });
    expect(realm.requests.inFlight()).toBe(0);
    expect(connection.serviceRequestsInFlight()).toBe(0);
  });

  it("timed out: the realm stops waiting, the host's service is told to stop", async () => {
    const hanging = hangingService();
    const { connection, realm } = connect({ hang: hanging.service });
    const result = await outcome(realm.requests.request("hang", { q: 1 }, { timeoutMs: 50 }));
    expect(result.error).toMatchObject({ code: "timeout" });
    await eventually(() => expect(hanging.seen).toEqual([{ aborted: true, reason: expect.anything() }]));
    expect(realm.requests.inFlight()).toBe(0);
    expect(connection.serviceRequestsInFlight()).toBe(0);
  });

  it("cancelled by Stop: the host ends the request as `aborted` on both sides", async () => {
    const hanging = hangingService();
    const { connection, realm } = connect({ hang: hanging.service });
    const request = realm.requests.request("hang", null, { timeoutMs: Infinity });
    await eventually(() => expect(connection.serviceRequestsInFlight()).toBe(1));
    // What RealmHost.abort() (the Stop button) does first.
    connection.endServiceRequests({ code: "aborted", message: "stopped by the person" });
    const result = await outcome(request);
    expect(result.error).toMatchObject({ code: "aborted" });
    expect(hanging.seen[0].aborted).toBe(true);
    expect(realm.requests.inFlight()).toBe(0);
    expect(connection.serviceRequestsInFlight()).toBe(0);
  });

  it("cancelled by a realm reset: the host's service stops and the realm's promise settles", async () => {
    const hanging = hangingService();
    const { connection, realm } = connect({ hang: hanging.service });
    const request = realm.requests.request("hang", null, { timeoutMs: Infinity });
    await eventually(() => expect(connection.serviceRequestsInFlight()).toBe(1));
    // What a reset does to the old realm's connection (the worker dies with its port).
    connection.close(new RealmHostError("realm-reset", "the realm was reset (requested)"));
    expect(hanging.seen[0]).toMatchObject({ aborted: true, reason: expect.objectContaining({ code: "realm-reset" }) });
    expect(connection.serviceRequestsInFlight()).toBe(0);
    const result = await outcome(request);
    expect(result.error).toMatchObject({ code: "realm-reset" });
    expect(realm.requests.inFlight()).toBe(0);
  });

  it("withdrawn by the realm (its AbortSignal): the host stops the work and owes no answer", async () => {
    const hanging = hangingService();
    const { connection, realm, invalid } = connect({ hang: hanging.service });
    const controller = new AbortController();
    const request = realm.requests.request("hang", null, { signal: controller.signal });
    await eventually(() => expect(connection.serviceRequestsInFlight()).toBe(1));
    controller.abort();
    expect((await outcome(request)).error).toMatchObject({ code: "cancelled" });
    await eventually(() => expect(connection.serviceRequestsInFlight()).toBe(0));
    expect(hanging.seen[0].aborted).toBe(true);
    expect(invalid).toEqual([]);
  });

  it("the host refuses malformed requests without calling any service", async () => {
    let calls = 0;
    const channel = new MessageChannel();
    const invalid: string[] = [];
    const connection = createRealmConnection({
      port: channel.port1,
      nextId: () => 1,
      service: () => () => void calls++ as never,
      handlers: {
        onReady() {},
        onEvent() {},
        onMount() {},
        onUnresponsive() {},
        onClosed() {},
        onInvalid: (reason) => void invalid.push(reason),
      },
    });
    cleanups.push(() => {
      connection.close(new RealmHostError("disposed", "test over"));
      channel.port2.close();
    });
    for (const bad of [
      { type: "call", id: 1, method: "Bad Name", payload: null, timeoutMs: null },
      { type: "call", id: 2, method: "echo", payload: () => 1, timeoutMs: null },
      { type: "call", id: -3, method: "echo", payload: null, timeoutMs: null },
      { type: "call", id: 4, method: "echo", payload: null, timeoutMs: -1 },
    ]) {
      try {
        channel.port2.postMessage(bad);
      } catch {
        invalid.push("unclonable");
      }
    }
    await eventually(() => expect(invalid).toHaveLength(4));
    expect(calls).toBe(0);
  });
});

describe("host → realm calls (FLUSH, ABORT) on the same mechanism", () => {
  it("the realm answers flush and abort once; nothing stays pending on either side", async () => {
    const { connection, realm, invalid } = connect({});
    await expect(connection.request(FLUSH, { timeoutMs: 1_000 })).resolves.toBeUndefined();
    await expect(connection.request(ABORT, { timeoutMs: 1_000 })).resolves.toBeUndefined();
    expect(connection.requestsInFlight()).toBe(0);
    expect(realm.requests.inFlight()).toBe(0);
    expect(invalid).toEqual([]);
  });

  it("the realm answers a method it does not have with unknown-service", async () => {
    const channel = new MessageChannel();
    const answers: unknown[] = [];
    channel.port1.onmessage = (event) => void (event.data.type === RESULT && answers.push(event.data));
    createRealm().serve(channel.port2);
    cleanups.push(() => channel.port1.close());
    channel.port1.postMessage({ type: CALL, id: 7, method: "net.fetch", payload: null, timeoutMs: null });
    await eventually(() =>
      expect(answers).toEqual([
        { type: RESULT, id: 7, ok: false, error: expect.objectContaining({ code: "unknown-service" }) },
      ]),
    );
  });
});

describe("forged requests and answers from the realm", () => {
  it("a result for an id the host never sent settles nothing and is reported", async () => {
    const { connection, realmPort, invalid } = bareHost();
    realmPort.postMessage({ type: RESULT, id: 41, ok: true, value: null });
    await eventually(() => expect(invalid).toEqual([`${RESULT} for unknown request 41`]));
    expect(connection.requestsInFlight()).toBe(0);
  });

  it("a duplicate result is refused: the first one settles the call, the second nothing", async () => {
    const { connection, realmPort, invalid, toRealm } = bareHost();
    const flush = outcome(connection.request(FLUSH, { timeoutMs: null }));
    await eventually(() => expect(toRealm).toContainEqual(expect.objectContaining({ type: CALL, method: FLUSH })));
    const { id } = toRealm.find((message) => message.type === CALL)!;
    realmPort.postMessage({ type: RESULT, id, ok: true, value: null });
    realmPort.postMessage({ type: RESULT, id, ok: false, error: { code: "failed", message: "second" } });
    expect(await flush).toEqual({ value: undefined });
    await eventually(() => expect(invalid).toEqual([`${RESULT} for unknown request ${id}`]));
    expect(connection.requestsInFlight()).toBe(0);
  });

  it("a result after the host cancelled (its signal, its timeout) settles nothing", async () => {
    const { connection, realmPort, invalid, toRealm } = bareHost();
    const controller = new AbortController();
    const cancelled = outcome(connection.request(FLUSH, { timeoutMs: null, signal: controller.signal }));
    const timedOut = outcome(connection.request(ABORT, { timeoutMs: 20 }));
    await eventually(() => expect(toRealm.filter((message) => message.type === CALL)).toHaveLength(2));
    controller.abort();
    expect((await cancelled).error).toMatchObject({ code: "cancelled" });
    expect((await timedOut).error).toMatchObject({ code: "timeout" });
    const ids = toRealm.filter((message) => message.type === CALL).map((message) => message.id!);
    await eventually(() =>
      expect(
        toRealm
          .filter((message) => message.type === CANCEL)
          .map((message) => message.id)
          .sort(),
      ).toEqual(ids.sort()),
    );
    for (const id of ids) realmPort.postMessage({ type: RESULT, id, ok: true, value: null });
    await eventually(() => expect(invalid).toHaveLength(2));
    expect(connection.requestsInFlight()).toBe(0);
  });

  it("a call of a method the host does not offer (its own flush, a prototype key) is refused without calling anything", async () => {
    let calls = 0;
    const { connection, realmPort, invalid, toRealm } = bareHost({ echo: () => void calls++ as never });
    for (const [id, method] of [
      [1, FLUSH],
      [2, ABORT],
      [3, "constructor"],
      [4, "nope"],
    ] as const) {
      realmPort.postMessage({ type: CALL, id, method, payload: null, timeoutMs: null });
    }
    await eventually(() => expect(toRealm.filter((message) => message.type === RESULT)).toHaveLength(4));
    expect(
      toRealm
        .filter((message) => message.type === RESULT)
        .map((message) => (message as { error?: { code: string } }).error?.code),
    ).toEqual(["unknown-service", "unknown-service", "unknown-service", "unknown-service"]);
    expect(calls).toBe(0);
    expect(connection.serviceRequestsInFlight()).toBe(0);
    expect(invalid).toEqual([]);
  });

  it("a call reusing the id of one in flight is refused, and the first is served once", async () => {
    const hanging = hangingService();
    const { connection, realmPort, invalid } = bareHost({ hang: hanging.service });
    realmPort.postMessage({ type: CALL, id: 5, method: "hang", payload: null, timeoutMs: null });
    realmPort.postMessage({ type: CALL, id: 5, method: "hang", payload: 2, timeoutMs: null });
    await eventually(() => expect(invalid).toEqual([`${CALL} reuses the id 5 of a request in flight`]));
    expect(hanging.seen).toHaveLength(1);
    expect(connection.serviceRequestsInFlight()).toBe(1);
    realmPort.postMessage({ type: CANCEL, id: 5 });
    await eventually(() => expect(connection.serviceRequestsInFlight()).toBe(0));
    expect(hanging.seen[0].aborted).toBe(true);
  });

  it("the realm ignores a result for a request it never made, and one after its own cancel", async () => {
    const channel = new MessageChannel();
    const realm = createRealm().serve(channel.port2);
    const calls: { id: number }[] = [];
    channel.port1.onmessage = (event) => void (event.data.type === CALL && calls.push(event.data));
    cleanups.push(() => channel.port1.close());
    channel.port1.postMessage({ type: RESULT, id: 99, ok: true, value: "forged" });
    const controller = new AbortController();
    const request = outcome(realm.requests.request("echo", null, { signal: controller.signal }));
    await eventually(() => expect(calls).toHaveLength(1));
    controller.abort();
    expect((await request).error).toMatchObject({ code: "cancelled" });
    channel.port1.postMessage({ type: RESULT, id: calls[0].id, ok: true, value: "late" });
    const next = outcome(realm.requests.request("echo", null, { timeoutMs: 50 }));
    expect((await next).error).toMatchObject({ code: "timeout" });
    expect(realm.requests.inFlight()).toBe(0);
  });
});
