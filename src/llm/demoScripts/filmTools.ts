import { END, RUN, fencedOutput, unexpected, type DemoScript } from "./script";

/**
 * The tools flow without any server of one's own: the page's built-in demo
 * MCP server (src/capabilities/tools/demoMcpServer.ts) is connected when
 * this script is chosen (`usesDemoTools`), its tools appear in `tools`, and
 * the call asks the person first, like any tool.
 */
const lookUp = `Your tools come from MCP servers you connect in **Session settings**; for this demo a small film server runs right here in the page. Let me see what it offers and look up a film. **You'll be asked first** — the call shows up above the message box with its arguments; choose *Allow once*.

${RUN}
const toolNames = tools.list().map((tool) => tool.name)
console.log("tools:", toolNames.join(", "))
const film = await tools.lookup_film({ title: "Dune" })
mount({
  title: "Film",
  ui: () => (
    <Card className="p-4">
      <CardHeader>
        <CardTitle>{film.title} ({film.year})</CardTitle>
        <CardDescription>Directed by {film.director}</CardDescription>
      </CardHeader>
      <CardContent className="flex gap-2">
        <Badge>{film.minutes} min</Badge>
        <Badge>rated {film.rating}</Badge>
      </CardContent>
    </Card>
  ),
})
console.log("film:", film.title, film.year, "by", film.director)
${END}`;

const explain = (feedback: string): string => {
  const output = fencedOutput(feedback);
  const match = /film: (.+?) (\d{4}) by (.+)/.exec(output);
  if (match) {
    return `That's **${match[1]}** (${match[2]}), directed by ${match[3]}, straight from the tool's structured result and drawn in the card above.

A tool's result comes from outside, so it reached me marked as *untrusted content*: data to read, never instructions. Every call is in the audit list in **Session settings**, where you can also connect your own server (**MCP server URL**, **Add server**) or revoke a tool you allowed always.`;
  }
  if (/denied/i.test(output)) {
    return "You chose not to let that tool run, so there's nothing to show — that's fine: code here can only call what you allow. Ask again whenever you like.";
  }
  return unexpected(feedback);
};

export const filmTools: DemoScript = {
  name: "tools",
  title: "Call a tool of an MCP server (you allow it first)",
  suggestion: "Look up a film with a tool",
  keywords: ["tool", "tools", "mcp", "film", "movie", "server", "skills"],
  usesDemoTools: true,
  steps: [lookUp, explain],
};
