import { useState } from "react";
import type { SessionChatSettings, SuggestedChatSettings } from "../store/types";
import { readMaxOutputTokens } from "./settings";

/** A temperature from the form: 0–2, else absent (the provider's default). */
export function readTemperature(value: string): number | undefined {
  if (value.trim() === "") return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? Math.min(2, Math.max(0, number)) : undefined;
}

/**
 * Session settings → Model: this session's model, temperature, max tokens
 * and extra system instruction, kept (and exported) with the session. Each
 * empty field means the app's Settings.
 *
 * An imported session's file may suggest model settings: they are shown
 * under "Suggested by the file" and apply only when the person presses
 * **Apply suggested settings** (an import never chooses what the person's
 * key is spent on). An instruction applied that way stays the file's: it is
 * shown apart and sent to the model as untrusted content, never as the
 * person's instruction.
 */
export function SessionModelSettings({
  chat,
  suggested,
  appModel,
  onSave,
  onApplySuggested,
  disabled = false,
  demo = false,
}: {
  /** The demo model answers (no API key): no model named here or in Settings is the one answering. */
  demo?: boolean;
  chat: SessionChatSettings | undefined;
  suggested?: SuggestedChatSettings;
  appModel: string;
  onSave: (chat: SessionChatSettings) => void | Promise<void>;
  /** Resolves with the session's settings once applied. */
  onApplySuggested?: () => Promise<SessionChatSettings | undefined>;
  disabled?: boolean;
}) {
  const [model, setModel] = useState(chat?.model ?? "");
  const [temperature, setTemperature] = useState(chat?.temperature === undefined ? "" : String(chat.temperature));
  const [maxTokens, setMaxTokens] = useState(chat?.maxOutputTokens === undefined ? "" : String(chat.maxOutputTokens));
  const [instruction, setInstruction] = useState(chat?.instruction ?? "");
  const [importedInstruction, setImportedInstruction] = useState(chat?.importedInstruction);
  const [suggestion, setSuggestion] = useState(suggested);
  const [saved, setSaved] = useState<"" | "saved" | "applied">("");
  const show = (settings: SessionChatSettings | undefined) => {
    setModel(settings?.model ?? "");
    setTemperature(settings?.temperature === undefined ? "" : String(settings.temperature));
    setMaxTokens(settings?.maxOutputTokens === undefined ? "" : String(settings.maxOutputTokens));
    setInstruction(settings?.instruction ?? "");
    setImportedInstruction(settings?.importedInstruction);
  };
  return (
    <fieldset className="lm-field lm-session-model">
      <legend>Model for this session</legend>
      {suggestion && (
        <section className="lm-suggested" aria-label="Suggested by the file">
          <h3 className="lm-dialog__subtitle">Suggested by the file</h3>
          <p className="lm-dialog__hint">
            This session came from a file or a share link. Its model settings are not applied: they would choose what
            your key is spent on. Applied, its instruction is sent to the model as untrusted content from the file,
            never as yours.
          </p>
          <dl className="lm-suggested__list">
            {suggestion.model !== undefined && (
              <>
                <dt>Model</dt>
                <dd>
                  <code>{suggestion.model}</code>
                </dd>
              </>
            )}
            {suggestion.temperature !== undefined && (
              <>
                <dt>Temperature</dt>
                <dd>{suggestion.temperature}</dd>
              </>
            )}
            {suggestion.maxOutputTokens !== undefined && (
              <>
                <dt>Max tokens per reply</dt>
                <dd>{suggestion.maxOutputTokens.toLocaleString("en-US")}</dd>
              </>
            )}
            {suggestion.instruction !== undefined && (
              <>
                <dt>Instruction</dt>
                <dd>
                  <pre className="lm-suggested__text">{suggestion.instruction}</pre>
                </dd>
              </>
            )}
          </dl>
          <button
            type="button"
            className="lm-button"
            disabled={disabled || !onApplySuggested}
            onClick={async () => {
              const applied = await onApplySuggested?.();
              if (!applied) return;
              show(applied);
              setSuggestion(undefined);
              setSaved("applied");
            }}
          >
            Apply suggested settings
          </button>
        </section>
      )}
      <label htmlFor="lm-session-model">Session model</label>
      <input
        id="lm-session-model"
        spellCheck={false}
        placeholder={demo ? "the demo model answers now" : `${appModel} (from Settings)`}
        value={model}
        onChange={(event) => setModel(event.target.value)}
        aria-describedby={demo ? "lm-session-model-demo" : undefined}
      />
      {demo && (
        <small id="lm-session-model-demo" className="lm-session-model__demo">
          The demo model (offline) answers until an API key is set in Settings; this session&apos;s model is used then.
        </small>
      )}
      <label htmlFor="lm-session-temperature">Temperature</label>
      <input
        id="lm-session-temperature"
        type="number"
        min={0}
        max={2}
        step={0.1}
        placeholder="provider default"
        value={temperature}
        onChange={(event) => setTemperature(event.target.value)}
      />
      <label htmlFor="lm-session-max-tokens">Max tokens per reply (this session)</label>
      <input
        id="lm-session-max-tokens"
        type="number"
        min={256}
        step={256}
        placeholder="from Settings"
        value={maxTokens}
        onChange={(event) => setMaxTokens(event.target.value)}
      />
      <label htmlFor="lm-session-instruction">Extra system instruction</label>
      <textarea
        id="lm-session-instruction"
        rows={3}
        placeholder="e.g. Answer in French. Prefer tables to charts."
        value={instruction}
        onChange={(event) => setInstruction(event.target.value)}
      />
      {importedInstruction !== undefined && (
        <section className="lm-suggested" aria-label="Instruction from the file">
          <h3 className="lm-dialog__subtitle">Instruction from the file</h3>
          <p className="lm-dialog__hint">
            Applied from the imported file: sent to the model as untrusted content from the file, not as your
            instruction.
          </p>
          <pre className="lm-suggested__text">{importedInstruction}</pre>
          <button
            type="button"
            className="lm-button"
            disabled={disabled}
            onClick={() => setImportedInstruction(undefined)}
          >
            Remove the file’s instruction
          </button>
        </section>
      )}
      <small>Kept with this session and in its export; empty fields use the app’s Settings.</small>
      <button
        type="button"
        className="lm-button"
        disabled={disabled}
        onClick={async () => {
          const next: SessionChatSettings = {};
          if (model.trim()) next.model = model.trim();
          const readTemp = readTemperature(temperature);
          if (readTemp !== undefined) next.temperature = readTemp;
          const readMax = readMaxOutputTokens(maxTokens);
          if (readMax !== undefined) next.maxOutputTokens = readMax;
          if (instruction.trim()) next.instruction = instruction.trim();
          if (importedInstruction) next.importedInstruction = importedInstruction;
          await onSave(next);
          setSaved("saved");
        }}
      >
        Save model settings
      </button>
      {saved === "saved" && <small aria-live="polite">Saved: the next reply in this session uses them.</small>}
      {saved === "applied" && (
        <small aria-live="polite">Applied: the next reply in this session uses the file’s settings.</small>
      )}
    </fieldset>
  );
}
