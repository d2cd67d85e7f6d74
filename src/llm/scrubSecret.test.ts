import { describe, expect, it } from "vitest";
import { scrubDescription, scrubSecret } from "./scrubSecret";

describe("scrubSecret", () => {
  it("removes every copy of the key, whatever its shape, from a description's message and details", () => {
    const key = "a1b2c3d4e5f6a7b8";
    expect(scrubSecret(`Incorrect API key provided: ${key}; again ${key}.`, ` ${key} `)).toBe(
      "Incorrect API key provided: [redacted key]; again [redacted key].",
    );
    expect(
      scrubDescription({ code: "auth", message: `bad ${key}`, details: `key=${key}`, retryable: false }, key),
    ).toEqual({
      code: "auth",
      message: "bad [redacted key]",
      details: "key=[redacted key]",
      retryable: false,
    });
  });

  it("leaves text alone when there is no key, or a placeholder too short to be one", () => {
    expect(scrubSecret("nothing to hide", "")).toBe("nothing to hide");
    expect(scrubSecret("the model answered", "the")).toBe("the model answered");
  });
});
