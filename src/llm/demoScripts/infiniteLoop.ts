import { END, RUN, expecting, unexpected, type DemoScript } from "./script";

const spin = `This block never ends on its own: \`while (true) {}\` spins forever without ever yielding. On most pages that would freeze the tab; here the loop guard stops it after a short time budget.

${RUN}
const before = "declared before the loop"
console.log("entering the loop…")
while (true) {}
console.log("this line never runs")
${END}`;

const guarded = `The loop guard stopped \`while (true) {}\` and reported it as an error, so the last line was skipped, and the page never froze. The realm should still hold what was declared before the loop; let me check:

${RUN}
console.log("still alive:", before)
${END}`;

const reset = `The loop guard did not catch this one, so the watchdog replaced the whole sandbox with a fresh one: the page survived, but everything declared before the loop (like \`before\`) is gone. That reset is the last line of defence. Nothing logged here, so it's your turn.`;

const survived = `\`before\` is still "declared before the loop": the realm kept its state, and only the runaway statement was stopped. Had the guard missed, a watchdog would have replaced the sandbox and told us both. Your turn!`;

export const infiniteLoop: DemoScript = {
  name: "infinite-loop",
  title: "An infinite loop meets the loop guard; the realm survives",
  suggestion: "Run an infinite loop",
  keywords: [
    "infinite",
    "infinite loop",
    "loop",
    "loops",
    "while",
    "hang",
    "freeze",
    "forever",
    "runaway",
    "guard",
    "loop guard",
    "stuck",
  ],
  steps: [
    spin,
    (feedback) => {
      if (/LoopGuard|loop guard|time budget/i.test(feedback)) return guarded;
      if (/reset/i.test(feedback)) return reset;
      return unexpected(feedback);
    },
    expecting(/still alive:\W+declared before the loop/, survived),
  ],
};
