/**
 * `npm run bridge -- --stdio`, as an MCP client that launches it would use
 * it: the SDK's stdio client spawns the real program and calls its tools.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

describe("bridge over stdio", () => {
  it("lists exactly the five tools and answers a join with an unknown code with a clear error", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, "node_modules/tsx/dist/cli.mjs"), join(ROOT, "bridge/main.ts"), "--stdio", "--port", "0"],
      cwd: ROOT,
      stderr: "ignore",
    });
    const client = new Client({ name: "stdio-smoke", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        "livemark_join",
        "livemark_read_session",
        "livemark_report",
        "livemark_run",
        "livemark_wait_for_command",
      ]);
      const join = (await client.callTool({ name: "livemark_join", arguments: { code: "ABCD-EFGH" } })) as {
        isError?: boolean;
        content: { text: string }[];
      };
      expect(join.isError).toBe(true);
      expect(join.content[0].text).toMatch(/Unknown channel code/);
      const wait = (await client.callTool({ name: "livemark_wait_for_command", arguments: { cursor: 0 } })) as {
        isError?: boolean;
        content: { text: string }[];
      };
      expect(wait.isError).toBe(true);
      expect(wait.content[0].text).toMatch(/Not joined/);
    } finally {
      await client.close();
    }
  });
});
