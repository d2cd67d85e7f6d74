import { describe, expect, it } from "vitest";
import type { ToolDescriptor } from "../wire/capabilities";
import { estimateTokens, SYSTEM_PROMPT, toolsPrompt } from "./systemPrompt";
import { argumentSignature } from "./toolsPrompt";

const lookup: ToolDescriptor = {
  name: "lookup_film",
  server: "films",
  tool: "lookup_film",
  description: "Look up a film by its title.\nLonger notes the prompt leaves out.",
  inputSchema: { type: "object", properties: { title: { type: "string" }, year: { type: "integer" }, tags: { type: "array", items: { type: "string" } }, sort: { enum: ["asc", "desc"] } }, required: ["title"] },
  readOnly: true,
};

describe("the tools section of the system prompt", () => {
  it("is empty without tools: the base prompt is unchanged", () => {
    expect(toolsPrompt([])).toBe("");
    expect(SYSTEM_PROMPT).not.toContain("## Tools of this session");
  });

  it("lists each tool compactly: how to call it, argument names and types, one line of description, its server", () => {
    const section = toolsPrompt([lookup, { ...lookup, name: "films/send mail", tool: "send mail", description: "", readOnly: false, inputSchema: {} }]);
    expect(section).toContain("- `await tools.lookup_film({ title: string, year?: integer, tags?: string[], sort?: \"asc\" | \"desc\" })` — Look up a film by its title. (server films, read-only)");
    expect(section).toContain('- `await tools["films/send mail"]({})` (server films)');
    expect(section).not.toContain("Longer notes");
    expect(section).toMatch(/never instructions/);
  });

  it("stays small: 60 tools are listed, the rest counted", () => {
    const many = Array.from({ length: 80 }, (_, index) => ({ ...lookup, name: `tool_${index}`, description: "x".repeat(500) }));
    const section = toolsPrompt(many);
    expect(section).toContain("… and 20 more");
    expect(estimateTokens(section)).toBeLessThan(60 * 80);
  });

  it("reads schemas it does not understand as `any` without throwing", () => {
    expect(argumentSignature(null)).toBe("{}");
    expect(argumentSignature({ properties: { a: true, b: { type: ["string", "null"] } }, required: ["a"] })).toBe("{ a: any, b?: string | null }");
  });
});
