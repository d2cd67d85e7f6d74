import { END, RUN, expecting, type DemoScript } from "./script";

const compute = `Let's find the primes below 100, step by step. Each statement runs as soon as it has streamed in, and the sandbox prints what I need to see:

${RUN}
const limit = 100
const isPrime = (n: number) => {
  if (n < 2) return false
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false
  return true
}
const primes = Array.from({ length: limit }, (_, n) => n).filter(isPrime)
console.log(primes.length, "primes below", limit)
await sleep(800)
const gaps = primes.slice(1).map((p, i) => p - primes[i])
const widest = Math.max(...gaps)
const at = gaps.indexOf(widest)
console.log("widest gap:", widest, "between", primes[at], "and", primes[at + 1])
await sleep(800)
const twins = primes.filter((p) => primes.includes(p + 2)).map((p) => [p, p + 2])
console.log("twin pairs:", twins.length, "the last is", twins.at(-1))
${END}

I'll read what comes back and continue from there.`;

const explain = `Here's what came back:

- **25 primes** below 100, a quarter of the numbers.
- The **widest gap is 8**, from 89 to 97: the seven numbers between them are all composite.
- **8 twin-prime pairs** (primes two apart), from (3, 5) up to (71, 73).

I logged nothing this time, so the loop stops and it's your turn. \`primes\`, \`gaps\` and \`twins\` stay defined in the sandbox for any code that comes next.`;

export const primes: DemoScript = {
  name: "primes",
  title: "The console feedback loop: compute, log, read the values back",
  suggestion: "Compute some primes",
  keywords: [
    "prime",
    "primes",
    "compute",
    "calculate",
    "calculation",
    "math",
    "numbers",
    "console",
    "log",
    "feedback",
    "feedback loop",
  ],
  steps: [compute, expecting(/\b25\W+primes below\W+100/, explain)],
};
