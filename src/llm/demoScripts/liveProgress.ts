import { END, RUN, expecting, type DemoScript } from "./script";

const run = `Here's a live progress panel. Its state is a \`Data\` object: each statement below changes it, and the panel redraws by itself. Nothing is mounted twice.

${RUN}
const progress = new Data({ done: 0, steps: ["Collect the photos", "Shrink them", "Upload", "Check the copies"] })
mount({
  title: "Backing up your photos",
  ui: () => (
    <Card className="p-4 grid gap-3 max-w-md">
      <Progress value={(progress.done / progress.steps.length) * 100} />
      <ul className="grid gap-1 text-sm">
        {progress.steps.map((step, index) => (
          <li key={step} className={index < progress.done ? "text-green-700 dark:text-green-400" : index === progress.done ? "font-medium" : "text-gray-500 dark:text-gray-400"}>
            {index < progress.done ? "✓" : index === progress.done ? "…" : "○"} {step}
          </li>
        ))}
      </ul>
    </Card>
  ),
})
await sleep(800)
progress.done = 1
await sleep(800)
progress.done = 2
await sleep(800)
progress.done = 3
await sleep(800)
progress.done = 4
console.log("backup finished:", progress.done, "of", progress.steps.length, "steps")
${END}

Each \`await sleep(800)\` stands in for real work, such as a \`fetch\`.`;

const done = `All **4 steps** are done, and the panel followed along: the statements only changed \`progress.done\`, and every mount that reads \`progress\` re-rendered on its own, at most once per frame.

The same works from anywhere: a timer, a button's handler, or a statement in a later reply. This one logs nothing, so it's your turn.`;

export const liveProgress: DemoScript = {
  name: "progress",
  title: "Reactive Data: a progress panel that later statements update",
  suggestion: "Show live progress",
  keywords: [
    "progress",
    "live",
    "reactive",
    "state",
    "status",
    "update",
    "updates",
    "backup",
    "job",
    "steps",
    "progress bar",
  ],
  steps: [run, expecting(/backup finished:\W+4\W+of\W+4\W+steps/, done)],
};
