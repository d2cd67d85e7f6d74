import { END, RUN, expecting, type DemoScript } from "./script";

const greeting = `Hi! I'm Livemark's **offline demo model**: I replay scripted replies, so you can see how Livemark works without an API key. Add an OpenAI-compatible key in Settings to talk to a real model.

My replies are Markdown, and the code in \`tsx agent.run\` fences **runs in a sandbox while I'm still typing**, one statement at a time. Watch each line run as it arrives:

${RUN}
console.log("Hello from the sandbox!")
await sleep(800)
const languages = ["TypeScript", "JSX", "JSON"]
console.log("I write " + languages.join(", "))
await sleep(800)
const answer = 6 * 7
console.log("6 × 7 =", answer)
${END}

Everything the code logs comes back to me as the next message, so I can react to it.`;

const reaction = `The sandbox answered: it said hello, listed what I write and worked out that 6 × 7 = **${6 * 7}**. That round trip — my code runs, its output comes back to me, I react — is the feedback loop.

This reply logs nothing, so the interaction ends here and it's your turn. Things to try:

- **Compute some primes**: a calculation I read back and explain
- **Show me an error**: a bug I fix in the next turn
- **Run an infinite loop**: the loop guard stops it
- **Order a pizza with a form**: my code waits for your answers
- **Show live progress**: a panel that updates as the code runs
- **Stream data into a chart**: a chart that grows as its data arrives
- **Give me a button to click**: each click comes back to me
- **Build me a dashboard**: a layout that fills in part by part
- **Make a to-do list that remembers**: its items survive a reload
- **Stream some Markdown**: a longer formatted reply`;

export const intro: DemoScript = {
  name: "intro",
  title: "Prose, code that runs statement by statement, and the feedback loop",
  suggestion: "Hello! What can you do?",
  keywords: ["hello", "hi", "hey", "help", "intro", "start", "demo", "what can you do", "how does this work"],
  steps: [greeting, expecting(/6 × 7 =\W*42/, reaction)],
};
