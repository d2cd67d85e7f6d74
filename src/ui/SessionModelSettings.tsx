import { useState } from "react";
import type { SessionChatSettings } from "../store/types";
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
 */
export function SessionModelSettings({
  chat,
  appModel,
  onSave,
  disabled = false,
}: {
  chat: SessionChatSettings | undefined;
  appModel: string;
  onSave: (chat: SessionChatSettings) => void | Promise<void>;
  disabled?: boolean;
}) {
  const [model, setModel] = useState(chat?.model ?? "");
  const [temperature, setTemperature] = useState(chat?.temperature === undefined ? "" : String(chat.temperature));
  const [maxTokens, setMaxTokens] = useState(chat?.maxOutputTokens === undefined ? "" : String(chat.maxOutputTokens));
  const [instruction, setInstruction] = useState(chat?.instruction ?? "");
  const [saved, setSaved] = useState(false);
  return (
    <fieldset className="lm-field lm-session-model">
      <legend>Model for this session</legend>
      <label htmlFor="lm-session-model">Session model</label>
      <input id="lm-session-model" spellCheck={false} placeholder={`${appModel} (from Settings)`} value={model} onChange={(event) => setModel(event.target.value)} />
      <label htmlFor="lm-session-temperature">Temperature</label>
      <input id="lm-session-temperature" type="number" min={0} max={2} step={0.1} placeholder="provider default" value={temperature} onChange={(event) => setTemperature(event.target.value)} />
      <label htmlFor="lm-session-max-tokens">Max tokens per reply (this session)</label>
      <input id="lm-session-max-tokens" type="number" min={256} step={256} placeholder="from Settings" value={maxTokens} onChange={(event) => setMaxTokens(event.target.value)} />
      <label htmlFor="lm-session-instruction">Extra system instruction</label>
      <textarea id="lm-session-instruction" rows={3} placeholder="e.g. Answer in French. Prefer tables to charts." value={instruction} onChange={(event) => setInstruction(event.target.value)} />
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
          await onSave(next);
          setSaved(true);
        }}
      >
        Save model settings
      </button>
      {saved && <small aria-live="polite">Saved: the next reply in this session uses them.</small>}
    </fieldset>
  );
}
