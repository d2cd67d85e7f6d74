/**
 * First run: a person without a key (the demo model answers) meets a short
 * welcome: what Livemark is, **Start the demo** (one click sends the demo's
 * first message), one sentence on bringing a key, and the other demos.
 */
export function Welcome({
  suggestions,
  onSuggestion,
  onOpenSettings,
}: {
  suggestions: readonly string[];
  onSuggestion: (text: string) => void;
  onOpenSettings?: () => void;
}) {
  const [first] = suggestions;
  return (
    <section className="lm-empty lm-welcome" aria-labelledby="lm-welcome-title">
      <h2 id="lm-welcome-title">Welcome to Livemark</h2>
      <p className="lm-welcome__lead">
        Chat with a model whose replies run: code in a reply executes while it streams, in a sandbox that cannot see
        your key, and can put live forms and charts in the chat.
      </p>
      <button
        type="button"
        className="lm-button lm-button--primary lm-welcome__start"
        onClick={() => onSuggestion(first)}
      >
        Start the demo
      </button>
      <p className="lm-welcome__key">
        The demo runs offline with scripted replies; to chat with a real model, add an OpenAI-compatible API key in{" "}
        {onOpenSettings ? (
          <button type="button" className="lm-link-button" aria-label="Open Settings" onClick={onOpenSettings}>
            Settings
          </button>
        ) : (
          "Settings"
        )}{" "}
        — it stays in this browser and is sent only to the endpoint you choose.
      </p>
      {suggestions.length > 1 && (
        <>
          <h3 className="lm-welcome__more">Or try one of these</h3>
          <div className="lm-suggestions">
            {suggestions.map((suggestion) => (
              <button key={suggestion} type="button" className="lm-button" onClick={() => onSuggestion(suggestion)}>
                {suggestion}
              </button>
            ))}
          </div>
        </>
      )}
    </section>
  );
}

/**
 * What a person with a key can ask first: a few prompts that show what runs,
 * each sent with one click (the empty screen once a real model answers).
 */
export const EXAMPLE_PROMPTS: readonly string[] = [
  "Chart 1,000 rolls of two dice: how often each total comes up",
  "Make a tip calculator with a slider for the percentage",
  "Build a to-do list that survives a reload",
  "Show a form that asks my name and age, then greet me",
];

export function ExamplePrompts({ onSuggestion }: { onSuggestion: (text: string) => void }) {
  return (
    <div className="lm-examples">
      <h3 className="lm-welcome__more" id="lm-examples-title">
        Try one of these
      </h3>
      <div className="lm-suggestions" role="group" aria-labelledby="lm-examples-title">
        {EXAMPLE_PROMPTS.map((prompt) => (
          <button key={prompt} type="button" className="lm-button" onClick={() => onSuggestion(prompt)}>
            {prompt}
          </button>
        ))}
      </div>
    </div>
  );
}
