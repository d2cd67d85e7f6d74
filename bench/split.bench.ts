/**
 * Statement splitter cost and earliness (DESIGN.md §5).
 *
 * - `exec.split3KBStatementMs`: total time to split one realistic 3 KB JSX
 *   statement streamed in 4-char chunks (median of several runs after warm-up;
 *   budget ≤ 20 ms). The 6 KB and 12 KB figures are printed to show the growth
 *   is linear, next to a naive reference that re-parses the whole buffer with
 *   Babel after every chunk.
 * - `exec.asiEarlyFraction`: on a corpus of model-style code without
 *   semicolons streamed in 1–6 char chunks, the fraction of statements (all but
 *   each block's last) yielded before `end()` (budget 1.0).
 * - `exec.splitYieldP95Ms`: p95 duration of the `push()` that yields a
 *   statement (its share of "statement start after its completing chunk").
 */
import * as Babel from "@babel/standalone";
import { createStatementSplitter } from "../workers/realm/executor/statementSplitter";

const CHUNK_SIZE = 4;
const WARM_UP_RUNS = 5;
const MEASURED_RUNS = 15;

/** One row of a realistic generated UI: props, strings with `'` and `;`, nested JSX. */
function row(index: number): string {
  return `        <TableRow key="row-${index}" className={index % 2 ? "bg-muted/50" : ""}>
          <TableCell className="font-medium">{data.items[${index}]?.name ?? "Item ${index}"}</TableCell>
          <TableCell>
            <Badge variant={data.items[${index}]?.done ? "default" : "secondary"}>
              {data.items[${index}]?.done ? "Done; archived" : "Don't forget"}
            </Badge>
          </TableCell>
          <TableCell className="text-right">
            <Button size="sm" onClick={() => callbacks.toggle(${index})}>Toggle</Button>
          </TableCell>
        </TableRow>
`;
}

/** A `mount({ ui: () => (<Card>…</Card>) })` statement of about `bytes` characters. */
export function jsxStatement(bytes: number): string {
  const head = `mount({
  title: "Project tracker",
  data: tracker,
  outputSchema: z.object({ note: z.string().max(200, "That's too long; keep it short") }),
  callbacks: { toggle: (i: number) => { tracker.items[i].done = !tracker.items[i].done; console.log("toggled", i) } },
  ui: ({ data, callbacks, errors }) => (
    <Card className="mx-auto max-w-2xl">
      <CardHeader>
        <CardTitle>Today's tasks</CardTitle>
        <CardDescription>Click a row to mark it done; it's saved at once.</CardDescription>
      </CardHeader>
      <CardContent>
      <Table>
        <TableBody>
`;
  const tail = `        </TableBody>
      </Table>
      <Label htmlFor="note">Note</Label>
      <Textarea id="note" name="note" placeholder='e.g. "ship it"; then rest' />
      {errors?.note && <p className="text-sm text-red-600">{errors.note}</p>}
      </CardContent>
      <CardFooter className="flex justify-between">
        <span>{\`\${data.items.filter((item) => item.done).length} of \${data.items.length} done\`}</span>
        <Button type="submit">Save</Button>
      </CardFooter>
    </Card>
  ),
})`;
  let rows = "";
  for (let index = 0; head.length + rows.length + tail.length < bytes; index++) rows += row(index);
  return head + rows + tail;
}

/** Model-style code blocks written without semicolons. */
export const MODEL_CORPUS: string[] = [
  `const res = await fetch("https://api.example.com/weather?city=Paris")
const data = await res.json()
console.log(data.current)
const temps = data.hourly.temperature_2m
  .slice(0, 24)
  .map((t: number, i: number) => ({ hour: i, temp: t }))
const max = Math.max(...temps.map((t) => t.temp))
console.log(\`Max today: \${max}°C; min \${Math.min(...temps.map((t) => t.temp))}°C\`)`,

  `const schema = z.object({
  name: z.string().min(1, "Name is required"),
  email: z.string().email("That's not an email"),
  plan: z.enum(["free", "pro"]),
})
const form = mount({
  title: "Sign up",
  outputSchema: schema,
  ui: ({ errors }) => (
    <Card className="max-w-md">
      <CardHeader>
        <CardTitle>Create your account</CardTitle>
      </CardHeader>
      <CardContent className="space-y-3">
        <Label htmlFor="name">Name</Label>
        <Input id="name" name="name" placeholder="Ada Lovelace" />
        {errors?.name && <p className="text-red-600">{errors.name}</p>}
        <Label htmlFor="email">Email</Label>
        <Input id="email" name="email" type="email" />
        <p className="text-xs">We won't share it; promise.</p>
        <Button type="submit">Sign up</Button>
      </CardContent>
    </Card>
  ),
})
const values = await form.result
console.log("Submitted:", values)`,

  `const state = new Data({ count: 0, items: [] as string[] })
function Counter({ data }: { data: typeof state }) {
  return (
    <div className="flex items-center gap-2">
      <Button onClick={() => data.count++}>+1</Button>
      <span>{data.count}</span>
    </div>
  )
}
mount({ data: state, ui: Counter })
state.count = 5
let label = state.count > 3
  ? "big"
  : "small"
console.log(label)
state.items.push("first")
;[1, 2, 3].forEach((n) => state.items.push(String(n)))
console.log(state.items.length)`,

  `interface Todo {
  id: number
  title: string
  done: boolean
}
type Filter = "all" | "open" | "done"
const todos: Todo[] = [
  { id: 1, title: "Buy milk", done: false },
  { id: 2, title: "Write report", done: true },
]
for (const todo of todos) {
  console.log(todo.title)
}
const open = todos.filter((t) => !t.done).length
if (open > 0) console.log(\`\${open} open\`)
else console.log("all done")
const byId = new Map<number, Todo>(todos.map((t) => [t.id, t]))
const pick = <T,>(xs: T[], i: number) => xs[i]
console.log(byId.get(1)?.title ?? "none", pick(todos, 0).title)`,

  `try {
  const r = await fetch("https://example.com/data.json")
  if (!r.ok) throw new Error(\`HTTP \${r.status}\`)
  const json = await r.json()
  console.log(Object.keys(json))
} catch (err) {
  console.error("Failed:", err)
}
const primes: number[] = []
for (let n = 2; primes.length < 20; n++) {
  if (primes.every((p) => n % p !== 0)) primes.push(n)
}
console.log(primes.join(", "))
const re = /^(\\d+)-(\\d+)$/
const [, from, to] = re.exec("10-20") ?? []
const ratio = Number(to)
  / Number(from)
console.log(ratio)`,

  `const sales = new StreamedData("sales")
mount({
  streamedData: sales,
  ui: ({ streamedData }) => (
    <ResponsiveContainer width="100%" height={240}>
      <LineChart data={streamedData ?? []}>
        <XAxis dataKey="month" />
        <YAxis />
        <Line type="monotone" dataKey="total" stroke="#8884d8" />
      </LineChart>
    </ResponsiveContainer>
  ),
})
const shell = mount({ ui: () => <div><Slot name="summary" fallback={<Skeleton className="h-4" />} /></div> })
shell.mountSlot("summary", () => <p className="text-sm">Sales went up; that's good news.</p>)
await sleep(500)
console.log("done")`,
];

function splitInChunks(source: string, size: number): number {
  const splitter = createStatementSplitter();
  let count = 0;
  for (let offset = 0; offset < source.length; offset += size) {
    count += splitter.push(source.slice(offset, offset + size)).statements.length;
  }
  const last = splitter.end();
  if (last.error) throw new Error(`bench input does not split: ${last.error.message} at ${last.error.line}`);
  return count + last.statements.length;
}

function parseOnce(source: string): boolean {
  try {
    Babel.packages.parser.parse(source, {
      sourceType: "script",
      plugins: ["typescript", "jsx"],
      allowAwaitOutsideFunction: true,
      errorRecovery: false,
    });
    return true;
  } catch {
    return false; // incomplete: wait for more
  }
}

/** The naive reference: re-parse the whole buffer after every chunk. */
function naiveInChunks(source: string, size: number): void {
  let buffer = "";
  for (let offset = 0; offset < source.length; offset += size) {
    buffer += source.slice(offset, offset + size);
    parseOnce(buffer);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function timeMedian(work: () => void, runs = MEASURED_RUNS, warmUp = WARM_UP_RUNS): number {
  for (let i = 0; i < warmUp; i++) work();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  return median(times);
}

/** Deterministic pseudo-random chunk sizes (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const round = (value: number) => Math.round(value * 100) / 100;

export async function run(): Promise<Record<string, number>> {
  // Cost of one large statement.
  const sources = [3, 6, 12].map((kilobytes) => ({ kilobytes, source: jsxStatement(kilobytes * 1024) }));
  // Warm every size up first, so that the first size measured is not the one
  // paying for the JIT.
  for (let i = 0; i < WARM_UP_RUNS; i++) {
    for (const { source } of sources) {
      if (splitInChunks(source, CHUNK_SIZE) !== 1) throw new Error("bench statement is not one statement");
    }
  }
  const sizes = sources.map(({ kilobytes, source }) => ({
    kilobytes,
    bytes: source.length,
    ms: timeMedian(() => splitInChunks(source, CHUNK_SIZE)),
    parseMs: timeMedian(() => parseOnce(source)),
    source,
  }));
  const naive = timeMedian(() => naiveInChunks(sizes[0].source, CHUNK_SIZE), 3, 1);
  console.log(`one JSX statement in ${CHUNK_SIZE}-char chunks (median of ${MEASURED_RUNS}):`);
  for (const size of sizes) {
    console.log(
      `  ${String(size.kilobytes).padStart(2)} KB (${size.bytes} chars): ${size.ms.toFixed(2)} ms` +
        `  (${((size.ms / size.bytes) * 1024).toFixed(2)} ms per KB; one Babel parse of it alone: ${size.parseMs.toFixed(2)} ms)`,
    );
  }
  console.log(
    `  growth 3→6 KB ×${(sizes[1].ms / sizes[0].ms).toFixed(2)}, 6→12 KB ×${(sizes[2].ms / sizes[1].ms).toFixed(2)} (linear: ×2)`,
  );
  console.log(
    `  naive re-parse per chunk, 3 KB: ${naive.toFixed(1)} ms — splitter is ${(naive / sizes[0].ms).toFixed(0)}× faster`,
  );

  // Many statements: the corpus repeated to about 12 KB.
  let manyStatements = "";
  while (manyStatements.length < 12 * 1024) manyStatements += MODEL_CORPUS.join("\n") + "\n";
  const statementCount = splitInChunks(manyStatements, CHUNK_SIZE);
  const manyMs = timeMedian(() => splitInChunks(manyStatements, CHUNK_SIZE));
  console.log(
    `model code without semicolons, ${manyStatements.length} chars, ${statementCount} statements, ${CHUNK_SIZE}-char chunks: ` +
      `${manyMs.toFixed(2)} ms (${((manyMs / manyStatements.length) * 1024).toFixed(2)} ms per KB)`,
  );

  // Earliness and per-yield latency on model-style code without semicolons.
  const next = random(20240607);
  let early = 0;
  let possible = 0;
  const yieldTimes: number[] = [];
  for (let pass = 0; pass < 20; pass++) {
    for (const block of MODEL_CORPUS) {
      const splitter = createStatementSplitter();
      let yielded = 0;
      for (let offset = 0; offset < block.length;) {
        const size = 1 + Math.floor(next() * 6);
        const start = performance.now();
        const result = splitter.push(block.slice(offset, offset + size));
        const elapsed = performance.now() - start;
        if (result.error) throw new Error(`corpus does not split: ${result.error.message}`);
        if (result.statements.length > 0) yieldTimes.push(elapsed);
        yielded += result.statements.length;
        offset += size;
      }
      const last = splitter.end();
      if (last.error) throw new Error(`corpus does not split: ${last.error.message}`);
      const total = yielded + last.statements.length;
      early += yielded;
      possible += total - 1;
    }
  }
  const asiEarlyFraction = early / possible;
  yieldTimes.sort((a, b) => a - b);
  const p95 = yieldTimes[Math.floor(yieldTimes.length * 0.95)];
  console.log(
    `corpus without semicolons in 1–6 char chunks: ${early} of ${possible} statements yielded before end() ` +
      `(fraction ${asiEarlyFraction.toFixed(3)}, budget 1.0)`,
  );
  console.log(`push() that yields a statement: p95 ${p95.toFixed(3)} ms over ${yieldTimes.length} yields`);

  return {
    "exec.split3KBStatementMs": round(sizes[0].ms),
    "exec.asiEarlyFraction": Math.round(asiEarlyFraction * 1000) / 1000,
    "exec.splitYieldP95Ms": Math.round(p95 * 1000) / 1000,
  };
}
