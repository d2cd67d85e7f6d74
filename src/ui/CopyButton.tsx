import { useState } from "react";

/** Copy `text` to the clipboard; says "Copied" (or why not) next to the button. */
export function CopyButton({
  text,
  title = "Copy to the clipboard",
}: {
  text: string | (() => string);
  title?: string;
}) {
  const [said, setSaid] = useState<string | undefined>();
  return (
    <>
      <button
        type="button"
        className="lm-button lm-button--quiet lm-copy"
        title={title}
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(typeof text === "function" ? text() : text);
            setSaid("Copied");
          } catch {
            setSaid("Copy failed: the browser refused access to the clipboard");
          }
          setTimeout(() => setSaid(undefined), 2000);
        }}
      >
        Copy
      </button>
      {said && (
        <span className="lm-copy__said" aria-live="polite">
          {said}
        </span>
      )}
    </>
  );
}
