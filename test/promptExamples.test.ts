import { describe, expect, it } from "vitest";
import { PROMPT_EXAMPLES, SYSTEM_PROMPT } from "../src/llm";
import { createSession } from "./runReply";

describe("system prompt examples", () => {
  it("are all embedded in the prompt", () => {
    expect(PROMPT_EXAMPLES.length).toBeGreaterThan(0);
    for (const example of PROMPT_EXAMPLES) expect(SYSTEM_PROMPT).toContain(example);
  });

  it.each(PROMPT_EXAMPLES.map((example, index) => [index, example] as const))(
    "example %i runs through the real parser and executor without errors",
    async (_, example) => {
      const session = createSession();
      const result = await session.run(example, 3);
      expect(result.protocolErrors).toEqual([]);
      expect(result.errors).toEqual([]);
      expect(result.logs.length).toBeGreaterThan(0);
    },
  );

  it("prints what the prompt says it prints", async () => {
    const session = createSession();
    const first = await session.run(PROMPT_EXAMPLES[0]);
    expect(first.logs).toEqual(["words per title: [ 1, 5, 1 ]"]);
    const second = await session.run(PROMPT_EXAMPLES[1]);
    expect(second.logs).toEqual(["step 1: load", "step 2: clean", "step 3: summarise"]);
  });

  it("run one after another in one realm (distinct names)", async () => {
    const session = createSession();
    for (const example of PROMPT_EXAMPLES) {
      const result = await session.run(example, 7);
      expect(result.errors).toEqual([]);
    }
  });
});
