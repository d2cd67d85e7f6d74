import { END, RUN, fencedOutput, unexpected, type DemoScript } from "./script";

const offer = `Here's a button whose click runs code in the sandbox. It calls the \`roll\` callback, which updates the panel and logs the roll; what it logs comes back to me as a **UI event**, so I can answer every roll.

${RUN}
const dice = new Data({ rolls: [] as number[] })
mount({
  title: "Dice",
  callbacks: {
    roll: () => {
      const value = 1 + Math.floor(Math.random() * 6)
      dice.rolls.push(value)
      console.log("rolled", value, "| rolls so far:", dice.rolls.join(", "))
    },
  },
  ui: ({ callbacks }) => (
    <Card className="p-4 flex items-center gap-4">
      <Button onClick={() => callbacks.roll()}>Roll the die</Button>
      <span className="text-sm text-gray-600 dark:text-gray-300">{dice.rolls.length === 0 ? "No rolls yet" : "Rolls: " + dice.rolls.join(", ")}</span>
    </Card>
  ),
})
${END}

This block logs nothing, so it's your turn now: **click the button**.`;

/** The last roll the output reports, with every roll so far; undefined when the output is something else. */
export function readRolls(feedback: string): { value: number; rolls: number[] } | undefined {
  // A console line may carry where it came from first: "[block 1] rolled 4 | …".
  const lines = fencedOutput(feedback)
    .split("\n")
    .map((line) => /^(?:\[block [^\]]*\] )?rolled (\d) \| rolls so far: ([\d, ]+)$/.exec(line.trim()))
    .filter((match) => match !== null);
  const last = lines.at(-1);
  if (!last) return undefined;
  const rolls = last[2].split(",").map((roll) => Number(roll.trim()));
  return { value: Number(last[1]), rolls };
}

const react = (feedback: string): string => {
  const read = readRolls(feedback);
  if (!read) return unexpected(feedback);
  const { value, rolls } = read;
  const cheer =
    value === 6
      ? "A **6**, the best there is!"
      : value === 1
        ? "A **1**. Better luck next time!"
        : `You rolled a **${value}**.`;
  const total = rolls.reduce((sum, roll) => sum + roll, 0);
  const history =
    rolls.length === 1
      ? "That's your first roll."
      : `Your ${rolls.length} rolls so far add up to **${total}**, an average of ${(total / rolls.length).toFixed(1)}.`;
  return `${cheer} ${history}

Your click ran the \`roll\` callback in the sandbox: it pushed the roll into a \`Data\` object, so the panel updated, and it logged a line, which reached me as a UI event. I log nothing here, so it's your turn again: roll once more?`;
};

export const diceButton: DemoScript = {
  name: "button",
  title: "A button with a callback: each click reaches the model as a UI event",
  suggestion: "Give me a button to click",
  keywords: [
    "button",
    "buttons",
    "click",
    "clicks",
    "callback",
    "callbacks",
    "dice",
    "die",
    "roll",
    "event",
    "events",
    "ui event",
  ],
  steps: [offer],
  uiEvent: react,
};
