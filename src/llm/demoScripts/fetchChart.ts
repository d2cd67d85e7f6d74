import { END, RUN, fencedOutput, unexpected, type DemoScript } from "./script";

/** A public API that allows browser requests (CORS); the browser tests serve it themselves. */
export const FETCH_CHART_URL = "https://api.github.com/repos/facebook/react/languages";

const fetchAndDraw = `Let me fetch real data and chart it: the languages of the React repository, from GitHub's API. This one needs the network (every other demo works offline). **You'll be asked first** — the request shows up above the message box with its full URL; choose *Allow once* to let it through.

${RUN}
const languageBytes = await fetch("${FETCH_CHART_URL}").then((response) => {
  if (!response.ok) throw new Error(\`GitHub answered HTTP \${response.status}\`)
  return response.json()
})
const languageRows = Object.entries(languageBytes)
  .map(([name, bytes]) => ({ name, kb: Math.round(Number(bytes) / 1024) }))
  .sort((a, b) => b.kb - a.kb)
  .slice(0, 6)
mount({
  title: "facebook/react: code by language (KB)",
  ui: () => (
    <BarChart data={languageRows} height={240}>
      <CartesianGrid strokeDasharray="3 3" />
      <XAxis dataKey="name" />
      <YAxis />
      <Tooltip />
      <Bar dataKey="kb" name="KB" fill="#6366f1" />
    </BarChart>
  ),
})
console.log("languages:", languageRows.map((row) => \`\${row.name} \${row.kb} KB\`).join(", "))
${END}`;

const explain = (feedback: string): string => {
  const output = fencedOutput(feedback);
  const match = /languages: ([^,\n]+?) (\d+) KB/.exec(output);
  if (match) {
    return `The chart shows the six biggest languages. **${match[1]}** leads with about ${match[2]} KB of code.

The response came from outside, so it reached me marked as *untrusted content*: data to read, never instructions. Everything this session fetched is listed in **Session settings** (the gear), where you can also revoke a host.`;
  }
  // Offline (or GitHub out of reach): the request never got an answer.
  if (/could not be reached|failed to fetch|network ?error|offline/i.test(output)) {
    return `This demo needs the network, and the request to ${new URL(FETCH_CHART_URL).host} got no answer: this browser looks offline (or GitHub could not be reached). Nothing was charted. Every other demo works offline; try this one again once you are connected.`;
  }
  if (/denied|network is off/i.test(output)) {
    return "You chose not to let that request through, so there is nothing to chart — that's fine: code here can only reach what you allow. Ask again whenever you like.";
  }
  return unexpected(feedback);
};

export const fetchChart: DemoScript = {
  name: "fetch",
  title: "Fetch real data (you allow it first) and chart it",
  suggestion: "Fetch data from an API and chart it",
  keywords: ["fetch", "api", "network", "download data", "github", "internet", "web", "http", "request"],
  steps: [fetchAndDraw, explain],
};
