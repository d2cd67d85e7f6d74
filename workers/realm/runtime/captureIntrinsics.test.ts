import { afterEach, describe, expect, it } from "vitest";
import { messageData } from "./captureIntrinsics";

const original = Object.getOwnPropertyDescriptor(MessageEvent.prototype, "data")!;
afterEach(() => Object.defineProperty(MessageEvent.prototype, "data", original));

describe("messageData", () => {
  it("reads a message through the original getter even after model code redefined MessageEvent.prototype.data", () => {
    const seen: unknown[] = [];
    Object.defineProperty(MessageEvent.prototype, "data", {
      configurable: true,
      get(this: MessageEvent) {
        seen.push(this);
        return "forged";
      },
    });
    const event = new MessageEvent("message", { data: { type: "ping", seq: 1 } });
    expect(event.data).toBe("forged");
    expect(messageData(event)).toEqual({ type: "ping", seq: 1 });
    expect(seen).toHaveLength(1);
  });
});
