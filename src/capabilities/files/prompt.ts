/**
 * What the system prompt tells the model about files: chosen in a mounted
 * input, attached to a message, offered by `download` (src/llm/systemPrompt.ts
 * places each part). The examples are a contract: test/promptExamples.test.ts runs them.
 */
import { UI_EVENT_MARKER } from "../../llm/feedbackMessage";
import type { PromptLines } from "../../llm/systemPrompt";

const FENCE = "```";

/** Files in: the person picks a file in a mounted input; the handler reads it. */
const EXAMPLE_FILE_INPUT = `${FENCE}tsx agent.run
mount({ title: "Your CSV", ui: () => (
  <input type="file" accept=".csv" onChange={async (event) => {
    const file = event.target.files[0]
    const lines = (await file.text()).trim().split("\\n")
    console.log(\`\${file.name}: \${lines.length - 1} rows; header \${lines[0]}\`)
  }} />
) })
${FENCE}`;

/** Files out: offered with a Save button; saved only when the person clicks. */
const EXAMPLE_DOWNLOAD = `${FENCE}tsx agent.run
const offer = await download("trips.csv", "city,days\\nLisbon,4\\nOslo,2", "text/csv")
console.log("offered", offer.name, offer.size, "bytes")
${FENCE}`;

export const filesPrompt: PromptLines = {
  globals: "`download(name, data, mimeType?)`",
  outside: {
    topic: "files",
    rules: [
      '- Files in: a mounted `<input type="file">` gives its `onChange` `event.target.files[0]` (`name`, `size`, `type`, `text()`, `arrayBuffer()`), up to 10 MB.',
      "- Files the person attached to a message: `await attachment(name)` gives the same File-like object (the message lists their names).",
      "- Files out: `await download(name, data, mimeType?)` shows a Save button; nothing is saved until the person clicks.",
    ].join("\n"),
    untrusted: "a chosen file",
  },
  examples: [
    {
      lead: `Reading a file the person chooses (its output comes back as a \`${UI_EVENT_MARKER}\` message):`,
      code: EXAMPLE_FILE_INPUT,
    },
    { lead: "Offering a file (offered, not yet saved):", code: EXAMPLE_DOWNLOAD },
  ],
};
