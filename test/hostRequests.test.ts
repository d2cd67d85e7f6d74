/**
 * Realm → host requests end to end over a real MessageChannel: the host's
 * connection (src/sandbox) with an echo-style test service on one port, the
 * realm's serveRealm on the other. Every way a request can end — answered,
 * timed out, cancelled by Stop, ended by a realm reset, withdrawn by the
 * realm — leaves nothing pending on either side.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createRealmConnection } from "../src/sandbox/createRealmConnection";
import { HostServiceError } from "../src/sandbox/HostServiceError";
import { RealmHostError } from "../src/sandbox/RealmHostError";
import type { HostService } from "../src/sandbox/types";
import { HostRequestError } from "../workers/realm/runtime/createHostRequests";
import { createRealm } from "../workers/realm/createRealm";

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
      onReady() {}, onEvent() {}, onMount() {}, onUnresponsive() {}, onClosed() {},
      onInvalid: (reason) => void invalid.push(reason),
    },
  });
  // The realm the worker runs (no code is sent), served on the other port.
  const realm = createRealm().serve(channel.port2);
  cleanups.push(() => {
    connection.close(new RealmHostError("disposed", "test over"));
    channel.port2.close();
  });
  return { connection, realm, invalid };
}

/** Settles (value or error), or says it is still pending after the port had time to carry an answer. */
async function outcome<T>(promise: Promise<T>, ms = 1_000): Promise<{ value?: T; error?: unknown; pending?: true }> {
  return Promise.race([
    promise.then((value) => ({ value }), (error: unknown) => ({ error })),
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
    expect((await outcome(realm.requests.request("broken", null))).error).toMatchObject({ code: "failed", message: "boom" });
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
      handlers: { onReady() {}, onEvent() {}, onMount() {}, onUnresponsive() {}, onClosed() {}, onInvalid: (reason) => void invalid.push(reason) },
    });
    cleanups.push(() => {
      connection.close(new RealmHostError("disposed", "test over"));
      channel.port2.close();
    });
    for (const bad of [
      { type: "service-request", id: 1, service: "Bad Name", payload: null, timeoutMs: null },
      { type: "service-request", id: 2, service: "echo", payload: () => 1, timeoutMs: null },
      { type: "service-request", id: -3, service: "echo", payload: null, timeoutMs: null },
      { type: "service-request", id: 4, service: "echo", payload: null, timeoutMs: -1 },
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
