import { END, RUN, fencedOutput, unexpected, type DemoScript } from "./script";

const offer = `Here's a to-do list whose items are **app data**: \`useStored\` works like \`useState\`, and the page keeps the value for this session in your browser, so the list is still there after a reload or a fresh sandbox.

${RUN}
const kept = (await storage.get("todos")) ?? []
console.log("to-dos kept:", kept.length)
mount({ title: "To-do", ui: () => {
  const [todos, setTodos] = useStored("todos", kept)
  const [text, setText] = useState("")
  const add = () => {
    if (text.trim() === "") return
    setTodos([...todos, { text: text.trim(), done: false }])
    setText("")
  }
  return (
    <Card className="p-4 grid gap-2 max-w-sm">
      <div className="flex gap-2">
        <Input value={text} placeholder="Something to do" onChange={(event) => setText(event.target.value)} onKeyDown={(event) => event.key === "Enter" && add()} />
        <Button onClick={add}>Add</Button>
      </div>
      {todos.map((todo, index) => (
        <Label key={index} className="flex items-center gap-2">
          <Checkbox checked={todo.done} onCheckedChange={(done) => setTodos(todos.map((item, at) => (at === index ? { ...item, done: done === true } : item)))} />
          {todo.text}
        </Label>
      ))}
    </Card>
  )
} })
${END}`;

/** How many to-dos the output says were kept; undefined when the output is something else. */
export function readKept(feedback: string): number | undefined {
  const match = /(?:^|\n)(?:\[block [^\]]*\] )?to-dos kept: (\d+)\s*$/m.exec(fencedOutput(feedback));
  return match ? Number(match[1]) : undefined;
}

const answer = (feedback: string): string => {
  const kept = readKept(feedback);
  if (kept === undefined) return unexpected(feedback);
  const start =
    kept === 0
      ? "The list starts empty: add a few things to do."
      : `Welcome back: **${kept}** ${kept === 1 ? "to-do was" : "to-dos were"} kept from before, and the list shows ${kept === 1 ? "it" : "them"}.`;
  return `${start} Each change is written to this session's app data, so **reload the page** and ask for the to-do list again: it comes back as you left it. You can see the data, and erase it, in Session settings → App data.`;
};

export const todoList: DemoScript = {
  name: "todo",
  title: "A to-do list whose items survive a reload (app data with useStored)",
  suggestion: "Make a to-do list that remembers",
  keywords: [
    "to-do",
    "todo",
    "todos",
    "to-dos",
    "remember",
    "remembers",
    "storage",
    "stored",
    "persist",
    "reload",
    "app data",
  ],
  steps: [offer, answer],
};
