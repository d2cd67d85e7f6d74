import { END, RUN, type DemoScript } from "./script";

/**
 * A UI that calls the model (`ai.complete`): a small translator. Offline, the
 * demo model's responder answers from a tiny dictionary
 * (src/capabilities/ai/demoResponder.ts); with a key, the session's model does.
 */
const offer = `Here's a small translator. Its **Translate** button calls the model from the UI with \`ai.complete\`: you're asked first (**Allow once**, **Always allow for this session** or **Deny**), and the call counts against this session's token budget (Session settings → Model calls from code). It isn't a chat turn: nothing is added to our conversation.

${RUN}
mount({ title: "Translator", ui: () => {
  const [text, setText] = useState("Good morning, my friend")
  const [language, setLanguage] = useState("French")
  const [result, setResult] = useState("")
  const [busy, setBusy] = useState(false)
  const translate = async () => {
    setBusy(true)
    try {
      setResult(await ai.complete(\`Translate to \${language}: \${text}\`, { system: "You translate. Answer with the translation only.", maxTokens: 200 }))
    } catch (error) {
      setResult(error.message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <Card className="p-4 grid gap-3">
      <Textarea value={text} onChange={(event) => setText(event.target.value)} />
      <div className="flex flex-wrap gap-2">
        {["French", "Spanish", "German"].map((name) => (
          <Button key={name} variant={name === language ? "default" : "outline"} onClick={() => setLanguage(name)}>{name}</Button>
        ))}
        <Button onClick={translate} disabled={busy}>{busy ? "Translating…" : "Translate"}</Button>
      </div>
      <p className="text-sm">{result}</p>
    </Card>
  )
} })
${END}

Pick a language and press **Translate**. The demo model knows only a few words; with an API key in Settings, your model translates anything.`;

export const translator: DemoScript = {
  name: "translator",
  title: "A UI that calls the model: a small translator (ai.complete, asked first)",
  suggestion: "Build me a small translator",
  keywords: ["translator", "translate", "translation", "french", "spanish", "german", "ai.complete", "model call"],
  steps: [offer],
};
