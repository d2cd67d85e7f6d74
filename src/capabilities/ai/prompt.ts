/**
 * What the system prompt tells the model about `ai` (src/llm/systemPrompt.ts
 * places each part). The example is a contract: test/promptExamples.test.ts runs it.
 */
import type { PromptLines } from "../../llm/systemPrompt";

const FENCE = "```";

/** A UI that calls the model on a click (never on render), its answer shown, a refusal caught. */
const EXAMPLE_AI_BUTTON = `${FENCE}tsx agent.run
mount({ title: "Cat names", ui: () => {
  const [name, setName] = useState("")
  const suggest = () => ai.complete("One name for a grey cat, only the name.", { maxTokens: 20 }).then(setName, (error) => setName(error.message))
  return <Button onClick={suggest}>{name || "Suggest a name"}</Button>
} })
${FENCE}`;

export const aiPrompt: PromptLines = {
  globals: "`ai`",
  outside: {
    topic: "the model",
    rules:
      "- `await ai.complete(prompt | messages, { system?, maxTokens?, temperature?, signal? })` → text (`ai.stream(…)`: pieces for `for await`): a model call for your UI or code, asked first, within the session's token budget. Call it on a click, never on render; show its errors, don't retry.",
    untrusted: "a model call's answer",
  },
  examples: [{ lead: "A UI that calls the model:", code: EXAMPLE_AI_BUTTON }],
};
