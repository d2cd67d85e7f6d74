import { useEffect, useRef, useState } from "react";
import { keyStorageNote, readMaxOutputTokens, type Settings } from "./settings";
import { readTokenPrice } from "./cost";
import { answeringModel } from "./modelLabel";
import { ENDPOINT_PRESETS, presetFor } from "../llm/endpoints";
import type { ConnectionReport } from "../llm/testConnection";

// The connection test loads on first use (it is not needed to chat).
const connection = () => import("../llm/testConnection");
import { useModalDialog } from "./useModalDialog";
import { OFFLINE_STORAGE_MB } from "./offlineSize";

export function SettingsDialog({
  settings,
  onSave,
  onClose,
  onForgetKey,
}: {
  settings: Settings;
  onSave: (settings: Settings) => void;
  onClose: () => void;
  /** Forget key: removes the saved key at once (the rest of the draft is kept). */
  onForgetKey?: () => void;
}) {
  const [draft, setDraft] = useState(settings);
  const [models, setModels] = useState<string[] | undefined>();
  const [report, setReport] = useState<ConnectionReport | { busy: string } | undefined>();
  const [keyNote, setKeyNote] = useState<string | undefined>();
  const endpoint = () => ({
    ...draft,
    provider: "openai" as const,
    baseURL: draft.baseURL.trim(),
    model: draft.model.trim(),
    apiKey: draft.apiKey.trim(),
  });
  const runTest = async () => {
    setReport({ busy: "Testing the connection…" });
    const { testConnection } = await connection();
    const result = await testConnection(endpoint(), { pageProtocol: location.protocol });
    if (result.models) setModels(result.models);
    setReport(result);
  };
  const loadModels = async () => {
    setReport({ busy: "Loading the model list…" });
    const { testConnection } = await connection();
    // The first checks of Test connection, so a failure says why the list is missing.
    const result = await testConnection(endpoint(), { pageProtocol: location.protocol, listOnly: true });
    if (result.models) {
      setModels(result.models);
      setReport(undefined);
    } else setReport(result);
  };
  // Kept as typed; read (and bounded) on save, so typing "8192" never jumps.
  const [maxTokensText, setMaxTokensText] = useState(
    settings.maxOutputTokens === undefined ? "" : String(settings.maxOutputTokens),
  );
  const [priceInText, setPriceInText] = useState(settings.price ? String(settings.price.inputPerMillion) : "");
  const [priceOutText, setPriceOutText] = useState(settings.price ? String(settings.price.outputPerMillion) : "");
  // Modal: focus stays inside and returns to the opener on close (useModalDialog.ts).
  const dialog = useModalDialog();
  const set = <K extends keyof Settings>(key: K, value: Settings[K]) =>
    setDraft((current) => ({ ...current, [key]: value }));
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
          onSave({
            ...rest,
            ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
            ...(price ? { price } : {}),
            baseURL: draft.baseURL.trim().replace(/\/+$/, ""),
            model: draft.model.trim(),
            apiKey: draft.apiKey.trim(),
          });
        }}
      >
        <h2 id="lm-settings-title">Settings</h2>
        <fieldset className="lm-field">
          <legend>Model provider</legend>
          <label>
            <input
              type="radio"
              name="provider"
              checked={draft.provider === "demo"}
              onChange={() => set("provider", "demo")}
            />
            Offline demo model (scripted, no key needed)
          </label>
          <label>
            <input
              type="radio"
              name="provider"
              checked={draft.provider === "openai"}
              onChange={() => set("provider", "openai")}
            />
            OpenAI-compatible endpoint
          </label>
        </fieldset>
        <div className="lm-field">
          <label htmlFor="lm-preset">Provider preset</label>
          <select
            id="lm-preset"
            value={presetFor(draft.baseURL)?.id ?? ""}
            onChange={(event) => {
              const preset = ENDPOINT_PRESETS.find((item) => item.id === event.target.value);
              if (!preset) return;
              setModels(undefined);
              setReport(undefined);
              setDraft((current) => ({ ...current, provider: "openai", baseURL: preset.baseURL }));
            }}
          >
            <option value="">Custom</option>
            {ENDPOINT_PRESETS.map((preset) => (
              <option key={preset.id} value={preset.id}>
                {preset.label}
              </option>
            ))}
          </select>
          <small>
            Fills the base URL. Servers on this machine need no key, but must allow requests from this page (CORS).
          </small>
        </div>
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
          <label>
            <input
              type="checkbox"
              checked={draft.keyStorage === "tab"}
              onChange={(event) => set("keyStorage", event.target.checked ? "tab" : "browser")}
            />
            Keep the key for this tab only (never written to disk)
          </label>
          <small className="lm-key-note">{keyStorageNote(draft.keyStorage)}</small>
          <button
            type="button"
            className="lm-button"
            disabled={!draft.apiKey && !settings.apiKey}
            onClick={() => {
              setDraft((current) => ({ ...current, apiKey: "" }));
              onForgetKey?.();
              setKeyNote("The key was forgotten: it is no longer stored anywhere in this browser.");
            }}
          >
            Forget key
          </button>
          {keyNote && <small aria-live="polite">{keyNote}</small>}
        </div>
        <div className="lm-field">
          <label htmlFor="lm-base-url">Base URL</label>
          <input
            id="lm-base-url"
            type="url"
            spellCheck={false}
            value={draft.baseURL}
            onChange={(event) => {
              setModels(undefined);
              setEndpoint("baseURL", event.target.value);
            }}
          />
          <small>
            OpenAI, OpenRouter, Groq, Together, Ollama, LM Studio, vLLM, llama.cpp — any chat-completions endpoint.
          </small>
        </div>
        <div className="lm-field">
          <label htmlFor="lm-model">Model</label>
          <input
            id="lm-model"
            spellCheck={false}
            list="lm-model-list"
            value={draft.model}
            onChange={(event) => setEndpoint("model", event.target.value)}
          />
          <datalist id="lm-model-list">
            {models?.map((model) => (
              <option key={model} value={model} />
            ))}
          </datalist>
          {models && models.length > 0 && (
            <select
              aria-label="Available models"
              value={models.includes(draft.model.trim()) ? draft.model.trim() : ""}
              onChange={(event) => event.target.value && setEndpoint("model", event.target.value)}
            >
              <option value="">{models.length} models at this endpoint…</option>
              {models.map((model) => (
                <option key={model} value={model}>
                  {model}
                </option>
              ))}
            </select>
          )}
          <div className="lm-settings__connection">
            <button type="button" className="lm-button" onClick={() => void loadModels()}>
              Load models
            </button>
            <button type="button" className="lm-button" onClick={() => void runTest()}>
              Test connection
            </button>
          </div>
          {report && (
            <ul className="lm-connection-report" aria-label="Connection test" aria-live="polite">
              {"busy" in report ? (
                <li>{report.busy}</li>
              ) : (
                report.checks.map((check, index) => (
                  <li key={index} className={check.ok ? "lm-connection-report__ok" : "lm-connection-report__problem"}>
                    {check.ok ? "✓ " : "✗ "}
                    {check.text}
                  </li>
                ))
              )}
            </ul>
          )}
          <small>Test connection lists the models and sends the model one request of at most one token.</small>
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
          <small>
            A reply that reaches this limit is cut; raise it if replies stop with “cut at the token limit”. Empty: the
            provider’s default.
          </small>
        </div>
        <div className="lm-field">
          <label htmlFor="lm-price-in">Price per 1M input tokens (USD)</label>
          <input
            id="lm-price-in"
            type="number"
            min={0}
            step="any"
            placeholder="unknown"
            value={priceInText}
            onChange={(event) => setPriceInText(event.target.value)}
          />
          <label htmlFor="lm-price-out">Price per 1M output tokens (USD)</label>
          <input
            id="lm-price-out"
            type="number"
            min={0}
            step="any"
            placeholder="unknown"
            value={priceOutText}
            onChange={(event) => setPriceOutText(event.target.value)}
          />
          <small>With both prices, each interaction's summary shows its cost from the tokens the API reports.</small>
        </div>
        <p className="lm-settings__answering" aria-live="polite">
          After Save, replies come from: <strong>{answering.label}</strong>
          {answering.reason ? ` (${answering.reason})` : ""}
        </p>
        <p className="lm-settings__about">
          Livemark works offline once loaded: the first visit stores about {OFFLINE_STORAGE_MB} MB in this browser (the
          app, the sandbox, the demo model, highlighting and math fonts).
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
