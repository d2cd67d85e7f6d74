import { useEffect, useRef, useState } from "react";
import { readMaxOutputTokens, type Settings } from "./settings";
import { readTokenPrice } from "./cost";
import { answeringModel } from "./modelLabel";
import { useModalDialog } from "./useModalDialog";

export function SettingsDialog({
  settings,
  onSave,
  onClose,
}: {
  settings: Settings;
  onSave: (settings: Settings) => void;
  onClose: () => void;
}) {
  const [draft, setDraft] = useState(settings);
  // Kept as typed; read (and bounded) on save, so typing "8192" never jumps.
  const [maxTokensText, setMaxTokensText] = useState(settings.maxOutputTokens === undefined ? "" : String(settings.maxOutputTokens));
  const [priceInText, setPriceInText] = useState(settings.price ? String(settings.price.inputPerMillion) : "");
  const [priceOutText, setPriceOutText] = useState(settings.price ? String(settings.price.outputPerMillion) : "");
  // Modal: focus stays inside and returns to the opener on close (useModalDialog.ts).
  const dialog = useModalDialog();
  const set = <K extends keyof Settings>(key: K, value: Settings[K]) => setDraft((current) => ({ ...current, [key]: value }));
  // Typing into an endpoint field is choosing the endpoint: Save must not
  // quietly keep the demo model with a key next to it.
  const setEndpoint = (key: "apiKey" | "baseURL" | "model", value: string) =>
    setDraft((current) => ({ ...current, [key]: value, provider: value.trim() !== "" ? "openai" : current.provider }));
  const answering = answeringModel(draft);
  return (
    <dialog ref={dialog} className="lm-dialog" aria-labelledby="lm-settings-title" onClose={onClose}>
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          const { maxOutputTokens: _previous, price: _price, ...rest } = draft;
          const maxOutputTokens = readMaxOutputTokens(maxTokensText);
          const price = readTokenPrice(priceInText, priceOutText);
          onSave({ ...rest, ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}), ...(price ? { price } : {}), baseURL: draft.baseURL.trim().replace(/\/+$/, ""), model: draft.model.trim(), apiKey: draft.apiKey.trim() });
        }}
      >
        <h2 id="lm-settings-title">Settings</h2>
        <fieldset className="lm-field">
          <legend>Model provider</legend>
          <label>
            <input type="radio" name="provider" checked={draft.provider === "demo"} onChange={() => set("provider", "demo")} />
            Offline demo model (scripted, no key needed)
          </label>
          <label>
            <input type="radio" name="provider" checked={draft.provider === "openai"} onChange={() => set("provider", "openai")} />
            OpenAI-compatible endpoint
          </label>
        </fieldset>
        <div className="lm-field">
          <label htmlFor="lm-api-key">API key</label>
          <input
            id="lm-api-key"
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={draft.apiKey}
            onChange={(event) => setEndpoint("apiKey", event.target.value)}
            placeholder="sk-…"
          />
          <small>Stored only in this browser. Sent only to the base URL below; generated code never sees it.</small>
        </div>
        <div className="lm-field">
          <label htmlFor="lm-base-url">Base URL</label>
          <input
            id="lm-base-url"
            type="url"
            spellCheck={false}
            value={draft.baseURL}
            onChange={(event) => setEndpoint("baseURL", event.target.value)}
          />
          <small>OpenAI, OpenRouter, Groq, Together, Ollama, LM Studio, vLLM, llama.cpp — any chat-completions endpoint.</small>
        </div>
        <div className="lm-field">
          <label htmlFor="lm-model">Model</label>
          <input id="lm-model" spellCheck={false} value={draft.model} onChange={(event) => setEndpoint("model", event.target.value)} />
        </div>
        <div className="lm-field">
          <label htmlFor="lm-max-turns">Automatic turns per message</label>
          <input
            id="lm-max-turns"
            type="number"
            min={1}
            max={50}
            value={draft.maxTurns}
            onChange={(event) => set("maxTurns", Math.max(1, Math.min(50, Number(event.target.value) || 1)))}
          />
        </div>
        <div className="lm-field">
          <label htmlFor="lm-max-tokens">Max tokens per reply</label>
          <input
            id="lm-max-tokens"
            type="number"
            min={256}
            step={256}
            placeholder="provider default"
            value={maxTokensText}
            onChange={(event) => setMaxTokensText(event.target.value)}
          />
          <small>A reply that reaches this limit is cut; raise it if replies stop with “cut at the token limit”. Empty: the provider’s default.</small>
        </div>
        <div className="lm-field">
          <label htmlFor="lm-price-in">Price per 1M input tokens (USD)</label>
          <input id="lm-price-in" type="number" min={0} step="any" placeholder="unknown" value={priceInText} onChange={(event) => setPriceInText(event.target.value)} />
          <label htmlFor="lm-price-out">Price per 1M output tokens (USD)</label>
          <input id="lm-price-out" type="number" min={0} step="any" placeholder="unknown" value={priceOutText} onChange={(event) => setPriceOutText(event.target.value)} />
          <small>With both prices, each interaction's summary shows its cost from the tokens the API reports.</small>
        </div>
        <p className="lm-settings__answering" aria-live="polite">
          After Save, replies come from: <strong>{answering.label}</strong>
          {answering.reason ? ` (${answering.reason})` : ""}
        </p>
        <div className="lm-dialog__actions">
          <button type="button" className="lm-button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="lm-button lm-button--primary">
            Save
          </button>
        </div>
      </form>
    </dialog>
  );
}
