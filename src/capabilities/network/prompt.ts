/**
 * What the system prompt tells the model about `fetch` (src/llm/systemPrompt.ts
 * places each part: the globals line, "Reaching outside", the examples).
 * The example is a contract: test/promptExamples.test.ts runs it.
 */
import type { PromptLines } from "../../llm/systemPrompt";

const FENCE = "```";

/** The network: asked first, may be refused; check the status; catch and say what happened. */
const EXAMPLE_FETCH = `${FENCE}tsx agent.run
try {
  const response = await fetch("https://api.frankfurter.app/latest?from=EUR&to=USD")
  console.log(response.ok ? (await response.json()).rates : \`HTTP \${response.status}\`)
} catch (error) {
  console.log("fetch failed:", error.message)
}
${FENCE}`;

export const networkPrompt: PromptLines = {
  globals: "`fetch(url, init?)` (standard Response)",
  outside: {
    topic: "network",
    rules:
      "- `fetch` asks first (the person sees method and URL: Allow once, Always allow this host, or Deny) while your code waits. A refusal throws an error saying the person denied it: don't retry; say what you needed. No proxy: a server that does not allow browser requests (CORS) fails with a TypeError. No cookies or keys are ever sent. Limits: 10 MB, 30 s. Check `response.ok`.",
    untrusted: "fetched data",
  },
  examples: [{ lead: "Fetching (asked first; failures caught and reported):", code: EXAMPLE_FETCH }],
};
