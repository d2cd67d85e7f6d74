import { useState, type KeyboardEvent } from "react";

export function Composer({
  busy,
  onSend,
  onStop,
  placeholder,
}: {
  busy: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
  placeholder?: string;
}) {
  const [text, setText] = useState("");
  const send = () => {
    if (busy || !text.trim()) return;
    onSend(text);
    setText("");
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };
  return (
    <form
      className="lm-composer"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <label htmlFor="lm-message" className="lm-visually-hidden">
        Message
      </label>
      <textarea
        id="lm-message"
        value={text}
        rows={2}
        placeholder={placeholder ?? "Ask for something that runs… (Enter sends, Shift+Enter for a new line)"}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      {busy ? (
        <button type="button" className="lm-button lm-button--stop" onClick={onStop}>
          Stop
        </button>
      ) : (
        <button type="submit" className="lm-button lm-button--primary" disabled={!text.trim()}>
          Send
        </button>
      )}
    </form>
  );
}
