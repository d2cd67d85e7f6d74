/**
 * A stand-in for the page's capability services (src/session/capabilityController.ts,
 * src/capabilities) in Node contract tests: realm → host requests go
 * through the realm's real createHostRequests and are answered here, so the
 * realm's `fetch`, file inputs and `download` run their real code.
 */
import {
  AI_CALL,
  AI_NEXT,
  FILE_OFFER,
  FILE_READ,
  NET_FETCH,
  TOOL_CALL,
  type FetchRequestPayload,
  type FetchResponsePayload,
  type FileOfferPayload,
} from "../src/wire/capabilities";
import { CALL, RESULT } from "../src/wire/constants";
import type { JsonValue } from "../src/wire/mount";
import { createHostRequests, type HostRequests } from "../workers/realm/runtime/createHostRequests";
import { createAppData, type AppData } from "../src/capabilities/storage/createAppData";
import { createTestStore } from "../src/store/testSupport";

export interface FakeCapabilityHost {
  requests: HostRequests;
  /** Requests `fetch` made, in order. */
  fetched: FetchRequestPayload[];
  /** Files `download` offered, complete, in order. */
  offered: { name: string; mimeType: string; text: string }[];
  /** The page's app data (`storage`), the real host half over a fake IndexedDB, for one session. */
  appData: AppData;
  /** Make a file "chosen" by the person; returns its handle payload for a UI event. */
  choose(
    name: string,
    text: string,
    type?: string,
  ): { handle: string; name: string; size: number; type: string; lastModified: number };
}

export function createFakeCapabilityHost(
  answer: (
    request: FetchRequestPayload,
  ) => { status?: number; body: string; headers?: [string, string][] } | { error: { code: string; message: string } },
  /** TOOL_CALL: answered by this service (e.g. the page's real tool broker); errors keep their `code`. */
  tools?: (payload: JsonValue) => Promise<JsonValue>,
  /** AI_CALL and AI_NEXT: answered by this service (e.g. the page's real model-call broker); errors keep their `code`. */
  ai?: (service: string, payload: JsonValue) => Promise<JsonValue>,
): FakeCapabilityHost {
  const fetched: FetchRequestPayload[] = [];
  const offered: FakeCapabilityHost["offered"] = [];
  const files = new Map<string, string>();
  const parts = new Map<string, string[]>();
  let requests: HostRequests;
  const appData = createAppData();
  void appData.open({ sessionId: "session", store: createTestStore() });
  const reply = (
    id: number,
    result: { ok: true; value: JsonValue } | { ok: false; error: { code: string; message: string } },
  ) => queueMicrotask(() => requests.receive({ type: RESULT, id, ...result }));
  requests = createHostRequests((message) => {
    if (message.type !== CALL) return;
    const { id, method: service, payload } = message;
    if (service === NET_FETCH) {
      const request = payload as unknown as FetchRequestPayload;
      fetched.push(request);
      const result = answer(request);
      if ("error" in result) return reply(id, { ok: false, error: result.error });
      const response: FetchResponsePayload = {
        url: request.url,
        status: result.status ?? 200,
        statusText: "OK",
        redirected: false,
        headers: result.headers ?? [["content-type", "application/json"]],
        body: Buffer.from(result.body).toString("base64"),
      };
      return reply(id, { ok: true, value: response as unknown as JsonValue });
    }
    if (service === TOOL_CALL && tools) {
      void tools(payload).then(
        (value) => reply(id, { ok: true, value }),
        (error: { code?: string; message?: string }) =>
          reply(id, { ok: false, error: { code: error.code ?? "failed", message: error.message ?? String(error) } }),
      );
      return;
    }
    if ((service === AI_CALL || service === AI_NEXT) && ai) {
      void ai(service, payload).then(
        (value) => reply(id, { ok: true, value }),
        (error: { code?: string; message?: string }) =>
          reply(id, { ok: false, error: { code: error.code ?? "failed", message: error.message ?? String(error) } }),
      );
      return;
    }
    if (service === FILE_READ) {
      const text = files.get((payload as { handle: string }).handle);
      if (text === undefined) return reply(id, { ok: false, error: { code: "not-found", message: "no such file" } });
      return reply(id, { ok: true, value: { body: Buffer.from(text).toString("base64") } });
    }
    if (service === FILE_OFFER) {
      const part = payload as unknown as FileOfferPayload;
      const list = parts.get(part.offer) ?? [];
      list.push(part.body);
      parts.set(part.offer, list);
      if (part.part === part.parts - 1) {
        offered.push({
          name: part.name,
          mimeType: part.mimeType,
          text: Buffer.concat(list.map((body) => Buffer.from(body, "base64"))).toString(),
        });
      }
      return reply(id, { ok: true, value: { offered: true } });
    }
    const stored = appData.services[service];
    if (stored) {
      void Promise.resolve()
        .then(() => stored(payload, { signal: new AbortController().signal, service }))
        .then(
          (value) => reply(id, { ok: true, value }),
          (error: { code?: string; message?: string }) =>
            reply(id, { ok: false, error: { code: error.code ?? "failed", message: error.message ?? String(error) } }),
        );
      return;
    }
    reply(id, { ok: false, error: { code: "unknown-service", message: service } });
  });
  let next = 0;
  return {
    requests,
    fetched,
    offered,
    appData,
    choose(name, text, type = "text/csv") {
      const handle = `h${(next += 1)}`;
      files.set(handle, text);
      return { handle, name, size: Buffer.byteLength(text), type, lastModified: 0 };
    },
  };
}
