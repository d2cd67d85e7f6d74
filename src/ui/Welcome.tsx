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
