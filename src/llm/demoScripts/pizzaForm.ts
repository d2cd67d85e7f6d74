import { END, RUN, fencedOutput, unexpected, type DemoScript } from "./script";

const ask = `Let's order a pizza. I'll put a form in the chat, and my code **waits** for you to send it. A zod schema checks your answers first, so my code only ever gets valid values.

${RUN}
const pizzaForm = mount({
  title: "Order a pizza",
  outputSchema: z.object({
    name: z.string().trim().min(1, "Who is it for?"),
    size: z.enum(["small", "medium", "large"]),
    count: z.number().int().min(1, "At least one").max(10, "Ten at most"),
    extraCheese: z.boolean(),
  }),
  ui: () => (
    <form className="grid gap-3 max-w-sm">
      <Label>Your name <Input name="name" placeholder="Ada" /></Label>
      <Label>Size
        <Select name="size" defaultValue="medium">
          <SelectTrigger><SelectValue /></SelectTrigger>
          <SelectContent>
            <SelectItem value="small">Small</SelectItem>
            <SelectItem value="medium">Medium</SelectItem>
            <SelectItem value="large">Large</SelectItem>
          </SelectContent>
        </Select>
      </Label>
      <Label>How many <Input name="count" type="number" defaultValue={1} /></Label>
      <Label className="flex items-center gap-2"><Checkbox name="extraCheese" /> Extra cheese</Label>
      <Button type="submit">Order</Button>
    </form>
  ),
})
const order = await pizzaForm.result
console.log("order:", JSON.stringify(order))
${END}

My code is paused at \`await pizzaForm.result\` until you send the form. Try sending it without a name first: the error shows on the field, and my code keeps waiting.`;

interface PizzaOrder {
  name: string;
  size: string;
  count: number;
  extraCheese: boolean;
}

/** The order the form sent, read back from the runtime output; undefined when the output is something else. */
export function readOrder(feedback: string): PizzaOrder | undefined {
  // A console line may carry where it came from first: "[block 1 line 30] order: {…}".
  const match = /^(?:\[block [^\]]*\] )?order:\s*(\{.*\})\s*$/m.exec(fencedOutput(feedback));
  if (!match) return undefined;
  try {
    const order = JSON.parse(match[1]) as Partial<PizzaOrder>;
    if (
      typeof order.name !== "string" ||
      typeof order.size !== "string" ||
      typeof order.count !== "number" ||
      typeof order.extraCheese !== "boolean"
    ) {
      return undefined;
    }
    return order as PizzaOrder;
  } catch {
    return undefined;
  }
}

/** The person's own words, made safe to quote in Markdown: short, one line, no markup. */
function plain(text: string, max = 40): string {
  const flat = text
    .replace(/[\s]+/g, " ")
    .replace(/[\\`*_[\]<>#|~!]/g, "")
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const react = (feedback: string): string => {
  const order = readOrder(feedback);
  if (!order) return unexpected(feedback);
  const pizzas = `${order.count} ${plain(order.size, 10)} pizza${order.count === 1 ? "" : "s"}`;
  const cheese = order.extraCheese ? ", with extra cheese" : "";
  return `Thanks, **${plain(order.name) || "friend"}**! That's **${pizzas}**${cheese}. (None is on its way: I'm only a demo.)

My code read your answers by their field names (\`order.name\`, \`order.size\`, \`order.count\`, \`order.extraCheese\`), already checked and converted by the schema: \`count\` arrived as the number ${order.count}, not the text "${order.count}", and the checkbox as \`${order.extraCheese}\`.

This reply logs nothing, so it's your turn.`;
};

export const pizzaForm: DemoScript = {
  name: "form",
  title: "A form in the chat: the code awaits the validated values and reacts to them",
  suggestion: "Order a pizza with a form",
  keywords: [
    "form",
    "forms",
    "input",
    "inputs",
    "field",
    "fields",
    "submit",
    "order",
    "pizza",
    "validate",
    "validation",
    "zod",
    "schema",
  ],
  steps: [ask, react],
};
