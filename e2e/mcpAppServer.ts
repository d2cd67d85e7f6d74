/**
 * An MCP server with MCP App views for e2e/mcpApps.test.ts and
 * bench/mcpApp.bench.ts (built per request by e2e/mcpServer.ts): `show_film`
 * declares a view (`_meta.ui.resourceUri` → `ui://films/card.html`, of
 * `text/html;profile=mcp-app`); `rate_film` is for that view only
 * (visibility `["app"]`). The view's HTML runs the extension's own `App`
 * class (node_modules/@modelcontextprotocol/ext-apps, inlined as a module
 * script: no Livemark code on that side) and writes what it gets and can
 * reach into its DOM (`#status`, `#origin`, `#reach`, `#input`, `#result`,
 * `#called`, `#linked`; `body[data-painted-at]`: when the result was first drawn).
 */
import { readFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

const MCP_APP_MIME = "text/html;profile=mcp-app";
const VIEW_URI = "ui://films/card.html";

/** The extension's App bundle as one inline module: its closing `export {…}` becomes a binding of `App`. */
function appBundle(): string {
  const source = readFileSync(
    new URL("../node_modules/@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js", import.meta.url),
    "utf8",
  );
  const exports = /export\s*\{([^}]*)\}\s*;?\s*$/.exec(source);
  const local = exports?.[1]
    .split(",")
    .map((item) => item.trim().split(/\s+as\s+/))
    .find(([, name]) => name === "App")?.[0];
  if (!exports || !local) throw new Error("the ext-apps bundle's exports changed");
  return `${source.slice(0, exports.index)}\nconst ExtApp = ${local};`;
}

/** The film card: written against the extension's App only. */
const viewHtml = (probe: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>Film card</title></head>
<body>
<p id="status">starting</p>
<p id="origin"></p>
<p id="reach"></p>
<p id="input"></p>
<p id="result">no result</p>
<p id="called"></p>
<button id="rate">Rate it</button>
<button id="ask">Ask about it</button>
<button id="context">Tell the model</button>
<button id="link">Open its page</button>
<p id="linked"></p>
<p id="told"></p>
<div id="tall" style="height: 700px"></div>
<script type="module">
${appBundle()}
const show = (id, text) => (document.getElementById(id).textContent = text);
show("origin", "origin:" + self.origin);
const reach = [];
for (const [name, other] of [["parent", () => window.parent.document.body], ["top", () => window.top.document.body]]) {
  try { other(); reach.push(name + " reached"); } catch { reach.push(name + " blocked"); }
}
try { localStorage.length; reach.push("storage reached"); } catch { reach.push("storage blocked"); }
// Its policies (its own, none declared: nothing external; and the proxy's) close the network, even to a server that answers any page.
await fetch(${JSON.stringify(probe)}).then(
  () => reach.push("network reached"),
  () => reach.push("network blocked"),
);
show("reach", reach.join(", "));
const app = new ExtApp({ name: "Film card", version: "1.0.0" });
app.ontoolinput = (params) => show("input", "input:" + JSON.stringify(params.arguments));
app.ontoolresult = (params) => {
  show("result", "result:" + JSON.stringify(params.structuredContent));
  // When the result was first drawn (the frame after it was written), on the clock the page shares.
  requestAnimationFrame(() => (document.body.dataset.paintedAt ??= String(performance.timeOrigin + performance.now())));
};
await app.connect();
show("status", "initialized:" + (app.getHostContext()?.displayMode ?? "?"));
document.getElementById("rate").onclick = async () => {
  try {
    const rated = await app.callServerTool({ name: "rate_film", arguments: { title: "Dune", stars: 5 } });
    show("called", "called:" + rated.content.map((part) => part.text).join(""));
  } catch (error) {
    show("called", "failed:" + error.message);
  }
};
document.getElementById("context").onclick = async () => {
  await app.updateModelContext({ content: [{ type: "text", text: "The person picked Dune on the card." }] });
  show("told", "told");
};
document.getElementById("link").onclick = async () => {
  const opened = await app.openLink({ url: "https://example.com/dune" });
  show("linked", opened.isError ? "link:refused" : "link:opened");
};
document.getElementById("ask").onclick = () =>
  app.sendMessage({ role: "user", content: [{ type: "text", text: "Tell me more about Dune" }] });
</script>
</body></html>`;

/**
 * `probe`: a URL that answers any page (CORS `*`) the view tries to fetch (its own server's, by default none);
 * `reads`: gets the view's URI at each read of it.
 */
export function createAppServer(calls: string[], probe = "http://127.0.0.1:9/", reads: string[] = []): McpServer {
  const server = new McpServer({ name: "Films", version: "1.0.0" });
  server.registerTool(
    "show_film",
    {
      description: "Show a film's card.",
      inputSchema: { title: z.string() },
      annotations: { readOnlyHint: true },
      _meta: { ui: { resourceUri: VIEW_URI } },
    },
    async ({ title }) => {
      calls.push(`show_film ${JSON.stringify({ title })}`);
      return {
        content: [{ type: "text", text: "Dune (2021)" }],
        structuredContent: { title: "Dune", year: 2021 },
      };
    },
  );
  server.registerTool(
    "rate_film",
    {
      description: "Rate a film (from its card only).",
      inputSchema: { title: z.string(), stars: z.number() },
      _meta: { ui: { resourceUri: VIEW_URI, visibility: ["app"] } },
    },
    async ({ title, stars }) => {
      calls.push(`rate_film ${JSON.stringify({ title, stars })}`);
      return { content: [{ type: "text", text: `Rated ${title} ${stars} stars` }] };
    },
  );
  server.registerResource("film-card", VIEW_URI, { mimeType: MCP_APP_MIME }, async (uri) => {
    reads.push(uri.href);
    return { contents: [{ uri: uri.href, mimeType: MCP_APP_MIME, text: viewHtml(probe) }] };
  });
  return server;
}
