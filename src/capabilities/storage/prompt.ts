/**
 * What the system prompt tells the model about app data: `storage` and
 * `useStored` (src/llm/systemPrompt.ts places each part). The example is a
 * contract: test/promptExamples.test.ts runs it.
 */
import type { PromptLines } from "../../llm/systemPrompt";

const FENCE = "```";

/** Both halves in one short example: a count kept with `storage`, a list kept with `useStored`. */
const EXAMPLE_STORAGE = `${FENCE}tsx agent.run
const visits = ((await storage.get("visits")) ?? 0) + 1
await storage.set("visits", visits)
mount({ title: \`Visit \${visits}\`, ui: () => {
  const [notes, setNotes] = useStored("notes", [])
  return <Button onClick={() => setNotes([...notes, "note"])}>Notes kept: {notes.length}</Button>
} })
${FENCE}`;

export const storagePrompt: PromptLines = {
  globals: "`storage`, `useStored(key, initial)`",
  outside: {
    topic: "app data",
    rules:
      "- `storage` keeps JSON values for this session across reloads and resets: `await storage.get(key)` (undefined if absent), `.set(key, value)`, `.delete(key)`, `.keys(prefix?)`; 1 MB a value, 10 MB a session. In a UI, `useStored(key, initial)` is a `useState` that persists.",
  },
  examples: [{ lead: "App data (kept across reloads):", code: EXAMPLE_STORAGE }],
};
