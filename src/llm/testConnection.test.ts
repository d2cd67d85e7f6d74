import { describe, expect, it } from "vitest";
import { listModels, testConnection } from "./testConnection";
import type { LlmSettings } from "./settings";

const KEY = "plainkey0123456789abcdef";
const settings: LlmSettings = {
  provider: "openai",
  apiKey: KEY,
  baseURL: "http://127.0.0.1:9999/v1/",
  model: "mock-model",
};
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** A fake endpoint: `models` answers GET /models, `chat` answers POST /chat/completions; it records what it was asked. */
function endpoint(answers: { models?: () => Response; chat?: (body: { model: string }) => Response }) {
  const calls: { url: string; method: string; authorization: string | null; body?: unknown }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = String(input);
    const headers = new Headers(init?.headers);
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ url, method: init?.method ?? "GET", authorization: headers.get("authorization"), body });
    const answer = url.endsWith("/models") ? answers.models : answers.chat && (() => answers.chat!(body));
    if (!answer) throw new TypeError("Failed to fetch");
    return answer();
  };
  return { fetch, calls };
}

describe("Test connection", () => {
  it("lists the models with the key, then asks the model for one token; says what worked", async () => {
    const { fetch, calls } = endpoint({
      models: () => json(200, { data: [{ id: "mock-model" }, { id: "b-model" }] }),
      chat: () => json(200, { choices: [{ message: { content: "OK" } }] }),
    });
    const report = await testConnection(settings, { fetch });
    expect(report).toMatchObject({ ok: true, models: ["b-model", "mock-model"] });
    expect(report.checks.map((check) => check.text)).toEqual([
      "Reached 127.0.0.1:9999; the key was accepted and it lists 2 models.",
      "The model “mock-model” answered.",
    ]);
    expect(calls.map((call) => `${call.method} ${call.url}`)).toEqual([
      "GET http://127.0.0.1:9999/v1/models",
      "POST http://127.0.0.1:9999/v1/chat/completions",
    ]);
    expect(calls.every((call) => call.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(calls[1].body).toMatchObject({ model: "mock-model", max_tokens: 1, stream: false });
  });

  it("a refused key (401, 403) is named as the key's problem, without the key", async () => {
    for (const status of [401, 403]) {
      const { fetch } = endpoint({
        models: () => json(status, { error: { message: `Incorrect API key provided: ${KEY}` } }),
      });
      const report = await testConnection(settings, { fetch });
      expect(report.problem).toBe("auth");
      expect(report.checks.at(-1)!.text).toContain(`HTTP ${status}`);
      expect(JSON.stringify(report)).not.toContain(KEY);
    }
  });

  it("an unknown model (404 model_not_found) names the model and what is listed; a 404 without a model is the URL", async () => {
    const unknown = await testConnection(
      { ...settings, model: "gpt-nope" },
      {
        fetch: endpoint({
          models: () => json(200, { data: [{ id: "mock-model" }] }),
          chat: (body) =>
            json(404, { error: { message: `The model ${body.model} does not exist`, code: "model_not_found" } }),
        }).fetch,
      },
    );
    expect(unknown.problem).toBe("model");
    expect(unknown.checks.at(-1)!.text).toBe(
      "The model “gpt-nope” is not known at 127.0.0.1:9999 (HTTP 404). Check the model name. Models listed there: mock-model.",
    );
    const wrongUrl = await testConnection(settings, {
      fetch: endpoint({ models: () => json(404, "Not Found"), chat: () => new Response("Not Found", { status: 404 }) })
        .fetch,
    });
    expect(wrongUrl.problem).toBe("not-found");
    expect(wrongUrl.checks[0].text).toContain("offers no model list (HTTP 404)");
    expect(wrongUrl.checks.at(-1)!.text).toContain("the base URL looks wrong");
  });

  it("a failed fetch is CORS when the server answers a no-cors probe, else unreachable", async () => {
    const failing = endpoint({}).fetch;
    const cors = await testConnection(settings, { fetch: failing, probe: async () => true });
    expect(cors.problem).toBe("cors");
    expect(cors.checks.at(-1)!.text).toMatch(/does not accept requests from web pages \(CORS\)/);
    const probed: string[] = [];
    const unreachable = await testConnection(settings, {
      fetch: failing,
      probe: async (url) => (probed.push(url), false),
    });
    expect(unreachable.problem).toBe("unreachable");
    expect(probed).toEqual(["http://127.0.0.1:9999/v1/models"]);
  });

  it("sends no Authorization header without a key; Load models asks nothing of the model; bad settings stop before any request", async () => {
    const { fetch, calls } = endpoint({ models: () => json(200, ["a", "b"]) });
    expect(await listModels({ ...settings, apiKey: "" }, { fetch })).toEqual(["a", "b"]);
    const listOnly = await testConnection({ ...settings, apiKey: "", model: "" }, { fetch, listOnly: true });
    expect(listOnly).toMatchObject({ ok: true, models: ["a", "b"] });
    expect(calls.every((call) => call.authorization === null && call.method === "GET")).toBe(true);
    const bad = await testConnection({ ...settings, baseURL: "not a url" }, { fetch });
    expect(bad.problem).toBe("settings");
    expect(calls).toHaveLength(2);
  });
});
