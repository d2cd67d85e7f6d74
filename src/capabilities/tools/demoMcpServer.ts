/**
 * A small MCP server that runs in the page itself (the SDK's McpServer over
 * an in-memory transport), so a person without any server of their own sees
 * the whole tools flow with the offline demo model: `tools.list()`, a call,
 * the ask, the result in a mount. It knows a handful of films and keeps a
 * watch list in memory.
 *
 * - `lookup_film` (read-only): a film by title → structured content.
 * - `add_to_watchlist` (changes state): adds a film to the watch list.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

export const DEMO_SERVER_NAME = "demo-films";

export const DEMO_FILMS = Object.freeze([
  { title: "Dune", year: 2021, director: "Denis Villeneuve", minutes: 155, rating: 8.0 },
  { title: "Solaris", year: 1972, director: "Andrei Tarkovsky", minutes: 167, rating: 8.0 },
  { title: "Arrival", year: 2016, director: "Denis Villeneuve", minutes: 116, rating: 7.9 },
  { title: "Stalker", year: 1979, director: "Andrei Tarkovsky", minutes: 162, rating: 8.1 },
  { title: "Gattaca", year: 1997, director: "Andrew Niccol", minutes: 106, rating: 7.8 },
]);

export function createDemoMcpServer(): McpServer {
  const server = new McpServer({ name: DEMO_SERVER_NAME, version: "1.0.0" });
  const watchlist: string[] = [];
  const find = (title: string) => DEMO_FILMS.find((film) => film.title.toLowerCase() === title.trim().toLowerCase());

  server.registerTool(
    "lookup_film",
    {
      description: "Look up a film by its title: year, director, running time and rating.",
      inputSchema: { title: z.string().min(1).describe("The film's title, e.g. Dune") },
      outputSchema: {
        title: z.string(),
        year: z.number(),
        director: z.string(),
        minutes: z.number(),
        rating: z.number(),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ title }) => {
      const film = find(title);
      if (!film) {
        return {
          isError: true,
          content: [
            {
              type: "text",
              text: `No film titled "${title}" in the demo catalogue (try ${DEMO_FILMS.map((item) => item.title).join(", ")}).`,
            },
          ],
        };
      }
      return { structuredContent: { ...film }, content: [{ type: "text", text: JSON.stringify(film) }] };
    },
  );

  server.registerTool(
    "add_to_watchlist",
    {
      description: "Add a film to the person's watch list; returns the whole list.",
      inputSchema: { title: z.string().min(1) },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    async ({ title }) => {
      const film = find(title);
      if (!film)
        return { isError: true, content: [{ type: "text", text: `No film titled "${title}" in the demo catalogue.` }] };
      if (!watchlist.includes(film.title)) watchlist.push(film.title);
      return { content: [{ type: "text", text: `Watch list: ${watchlist.join(", ")}` }] };
    },
  );
  return server;
}
