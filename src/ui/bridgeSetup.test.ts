import { describe, expect, it } from "vitest";
import { PAGE_ORIGIN_MARK, bridgePort, clientConfigs, commandWithOrigin, withPageOrigin } from "./bridgeSetup";

describe("bridge setup", () => {
  it("fills the page's origin and the bridge's port into the command and every client configuration", () => {
    expect(commandWithOrigin("https://lm.example")).toBe("node livemark-bridge.mjs --allow-origin https://lm.example");
    expect(commandWithOrigin("https://lm.example", 4800)).toBe(
      "node livemark-bridge.mjs --port 4800 --allow-origin https://lm.example",
    );
    expect(bridgePort("ws://127.0.0.1:4800/page")).toBe(4800);
    expect(bridgePort("not an address")).toBe(4737);
    const configs = clientConfigs("https://lm.example", 4800);
    expect(configs.map((config) => config.client)).toEqual(
      expect.arrayContaining(["Claude Desktop", "Claude Code", "Codex", "VS Code", "Cursor"]),
    );
    expect(new Set(configs.map((config) => config.transport))).toEqual(new Set(["Streamable HTTP", "stdio"]));
    for (const config of configs) {
      if (config.transport === "stdio") {
        expect(config.text, config.client).toContain("--stdio");
        expect(config.text, config.client).toContain("https://lm.example");
        expect(config.text, config.client).toContain("4800");
      } else expect(config.text, config.client).toContain("http://127.0.0.1:4800/mcp");
      if (config.text.startsWith("{")) expect(() => JSON.parse(config.text), config.client).not.toThrow();
    }
    expect(configs.find((config) => config.client === "Codex")!.text).toMatch(
      /^\[mcp_servers\.livemark\]\ncommand = "node"\nargs = \["\/path\/to\/livemark-bridge\.mjs", "--stdio", "--port", "4800", "--allow-origin", "https:\/\/lm\.example"\]$/,
    );
  });

  it("writes the origin wherever the built file left room for it", () => {
    const built = `const a = "${PAGE_ORIGIN_MARK}"; const b = "${PAGE_ORIGIN_MARK}";`;
    expect(withPageOrigin(built, "https://lm.example")).toBe(
      'const a = "https://lm.example"; const b = "https://lm.example";',
    );
  });
});
