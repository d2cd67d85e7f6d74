/**
 * Protocol parser throughput (DESIGN.md §5: ≥ 50 MB/s for a 1 MB reply in
 * 4-char chunks). Prints a naive reference — re-splitting the accumulated
 * buffer on every chunk, as chat apps that re-parse the whole message do — for
 * comparison; only the parser's figure is recorded.
 */
import { createProtocolParser } from "../src/protocol/parser";

const CHUNK_SIZE = 4;
const WARM_UP_RUNS = 5;
const MEASURED_RUNS = 15;

const prose = `## Sales by region

Here is what the numbers say. The **north** region grew 12% while the south
stayed flat; see \`salesByRegion\` below. Inline fences like \`\`\`ts are not
fences, and neither is this: ~~~ in the middle of a line.

- Revenue is in euros 💶, rounded to the nearest thousand.
- Regions: 北部, 南部, and "the islands" 🏝️.
  Nested continuation line with \`code\`.

> Note: figures for December are provisional.
> \`\`\`tsx agent.run
> quoted, so shown and never run
> \`\`\`

`;

const code = `\`\`\`tsx agent.run
const sales = new Data({ rows: [] as { region: string; total: number }[] });
const chart = mount({
  title: "Sales",
  data: sales,
  ui: ({ data }) => (
    <Card className="p-4">
      <CardHeader><CardTitle>Sales by region</CardTitle></CardHeader>
      <CardContent>
        <BarChart width={480} height={240} data={data.rows}>
          <XAxis dataKey="region" /><YAxis /><Bar dataKey="total" />
        </BarChart>
      </CardContent>
    </Card>
  ),
});
const md = \`a template with a fence inside:
\\\`\\\`\\\`js
not a closer because of the info string
\\\`\\\`\\\`
\`;
const response = await fetch("https://example.com/api/sales?year=2024");
sales.rows = (await response.json()).rows;
console.log("loaded", sales.rows.length, "rows");
\`\`\`

`;

const data = `\`\`\`json agent.data => "sales"
{
  "rows": [
    { "region": "north", "total": 1200, "note": "includes \`\`\` in a string" },
    { "region": "south", "total": 980 },
    { "region": "east", "total": 1105, "label": "東部 🚀" },
    { "region": "west", "total": 870 }
  ]
}
\`\`\`

`;

const ordinary = `For comparison, the same in Python (not run):

\`\`\`python
rows = fetch_rows(2024)
print(sum(r["total"] for r in rows))
\`\`\`

\`\`\`\`markdown
An agent header shown as an example:
\`\`\`tsx agent.run
alert("shown, not run")
\`\`\`
\`\`\`\`

`;

export function buildReply(targetLength: number): string {
  const section = prose + code + data + ordinary;
  let reply = "";
  while (reply.length < targetLength) reply += section;
  return reply;
}

function chunk(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks;
}

function parseAll(chunks: readonly string[]): number {
  const parser = createProtocolParser();
  let events = 0;
  for (const piece of chunks) events += parser.push(piece).length;
  events += parser.end().length;
  return events;
}

/** What the parser replaces: split the whole buffer into fenced blocks again on every chunk. */
function naiveReparse(chunks: readonly string[]): number {
  const fence = /^ {0,3}(`{3,}|~{3,})([^\n]*)\n([\s\S]*?)^ {0,3}\1[ \t]*$/gm;
  let buffer = "";
  let blocks = 0;
  for (const piece of chunks) {
    buffer += piece;
    blocks = 0;
    for (const match of buffer.matchAll(fence)) if (/agent\.(run|data)/.test(match[2])) blocks++;
  }
  return blocks;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export async function run(): Promise<Record<string, number>> {
  const reply = buildReply(2 ** 20);
  const megabytes = Buffer.byteLength(reply, "utf8") / 2 ** 20;
  const chunks = chunk(reply, CHUNK_SIZE);

  let events = 0;
  for (let i = 0; i < WARM_UP_RUNS; i++) events = parseAll(chunks);
  const times: number[] = [];
  for (let i = 0; i < MEASURED_RUNS; i++) {
    const start = performance.now();
    events = parseAll(chunks);
    times.push(performance.now() - start);
  }
  const milliseconds = median(times);
  const throughput = megabytes / (milliseconds / 1000);
  console.log(
    `parser: ${megabytes.toFixed(2)} MB in ${chunks.length} chunks of ${CHUNK_SIZE}, ${events} events, ` +
      `median ${milliseconds.toFixed(1)} ms over ${MEASURED_RUNS} runs (min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)})`,
  );

  // Quadratic, so measured on 32 KB and extrapolated; not recorded.
  const small = reply.slice(0, 2 ** 15);
  const smallChunks = chunk(small, CHUNK_SIZE);
  naiveReparse(smallChunks);
  const naiveStart = performance.now();
  naiveReparse(smallChunks);
  const naiveMilliseconds = performance.now() - naiveStart;
  const naiveThroughput = small.length / 2 ** 20 / (naiveMilliseconds / 1000);
  const parserSmallStart = performance.now();
  parseAll(smallChunks);
  const parserSmallMilliseconds = performance.now() - parserSmallStart;
  console.log(
    `naive re-split per chunk (reference, not recorded): 32 KB in ${naiveMilliseconds.toFixed(0)} ms = ` +
      `${naiveThroughput.toFixed(3)} MB/s; quadratic, so 1 MB would take ~${((naiveMilliseconds * 32 * 32) / 1000).toFixed(0)} s. ` +
      `Parser on the same 32 KB: ${parserSmallMilliseconds.toFixed(2)} ms.`,
  );

  return { "protocol.throughputMBps": Math.round(throughput * 10) / 10 };
}
