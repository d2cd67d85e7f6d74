import { describe, expect, it } from "vitest";
import { answeringModel } from "./modelLabel";

describe("answeringModel", () => {
  it("names the model and host that answer", () => {
    expect(
      answeringModel({
        provider: "openai",
        apiKey: "sk-1",
        baseURL: "https://api.openai.com/v1",
        model: "gpt-4.1-mini",
      }).label,
    ).toBe("gpt-4.1-mini · api.openai.com");
    // A server on this machine needs no key.
    expect(
      answeringModel({ provider: "openai", apiKey: "", baseURL: "http://localhost:11434/v1", model: "llama3" }).label,
    ).toBe("llama3 · localhost:11434");
  });

  it("says the demo answers, and why, when the endpoint has no key", () => {
    const answer = answeringModel({
      provider: "openai",
      apiKey: "",
      baseURL: "https://api.openai.com/v1",
      model: "gpt-4.1-mini",
    });
    expect(answer.label).toBe("Demo model (offline)");
    expect(answer.reason).toMatch(/API key/);
    expect(answeringModel({ provider: "demo", apiKey: "sk-1", baseURL: "https://x.example/v1", model: "m" })).toEqual({
      label: "Demo model (offline)",
    });
  });
});
