import { END, type DemoScript } from "./script";

const tour = `## What a reply can hold

Replies stream in as **Markdown**, so prose arrives the way you read it: a few characters at a time, with *emphasis*, \`inline code\` and [links](https://commonmark.org) rendered as they land.

### Three kinds of blocks

| block | fence | what happens |
|---|---|---|
| text | none | shown as it streams |
| code | \`tsx agent.run\` | runs statement by statement in the sandbox |
| data | \`json agent.data => "id"\` | streams JSON into a live UI |

> Only fences marked \`agent.run\` or \`agent.data\` do anything. Every other fence is just shown.

For example, this one is only for reading; it never runs:

\`\`\`ts
function greet(name: string) {
  return "Hello, " + name
}
${END}

### Good to know

1. Code can't see your API key: it runs in an isolated sandbox.
2. The network is closed to code unless you allow it, host by host.
3. Sessions stay in your browser, and you can export them as JSON.

That's all prose, with nothing to run, so it's your turn.`;

export const markdownTour: DemoScript = {
  name: "markdown",
  title: "Prose streaming: headings, a table, a quote and a fence that is only shown",
  suggestion: "Stream some Markdown",
  keywords: [
    "markdown",
    "prose",
    "text",
    "format",
    "formatting",
    "table",
    "long",
    "stream",
    "streaming",
    "story",
    "write",
  ],
  steps: [tour],
};
