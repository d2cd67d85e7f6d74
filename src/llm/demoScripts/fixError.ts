import { END, RUN, expecting, type DemoScript } from "./script";

const buggy = `Here is code with a bug in it on purpose, so you can see what happens to errors. One order has no customer, and the code doesn't expect that:

${RUN}
const orders = [
  { id: 1, customer: { name: "Ada" }, total: 30 },
  { id: 2, customer: null, total: 12 },
  { id: 3, customer: { name: "Grace" }, total: 25 },
]
console.log("orders:", orders.length)
const names = orders.map((order) => order.customer.name.toUpperCase())
console.log("customers:", names)
${END}

When something throws, the rest of the code is skipped and the error comes back to me with its line.`;

const fix = `The sandbox reported a \`TypeError\`: order 2 has \`customer: null\`, so \`order.customer.name\` cannot be read. \`orders\` is still defined from the last turn, so only the broken step needs redoing, with optional chaining and a fallback:

${RUN}
const customerNames = orders.map((order) => order.customer?.name.toUpperCase() ?? "(no customer)")
console.log("customers:", customerNames)
${END}`;

const confirm = `Fixed: the customers are **ADA**, **(no customer)** and **GRACE**. \`?.\` stops at the \`null\` instead of throwing, and \`??\` fills in a label. Nothing was logged this time, so it's your turn.`;

export const fixError: DemoScript = {
  name: "fix-error",
  title: "An error comes back with its line, and the next turn fixes it",
  suggestion: "Show me an error",
  keywords: [
    "error",
    "errors",
    "bug",
    "bugs",
    "fix",
    "broken",
    "exception",
    "throw",
    "throws",
    "crash",
    "typeerror",
    "mistake",
  ],
  steps: [buggy, expecting(/TypeError/, fix), expecting(/customers:\W.*no customer/, confirm)],
};
