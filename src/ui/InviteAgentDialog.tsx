import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { CONNECTION_WORDS, isLoopbackAddress, type AgentChannel } from "../agent/agentChannel";
import { AgentAdmissions, AgentRightsFields } from "./agentLink";

/**
 * Invite agent (DESIGN.md §4b): the bridge's address, the channel code and
 * a prompt ready to paste into the person's own agent, each with a copy
 * button; the connection state in words; End channel. Loaded on first use.
 */

export function agentPrompt(code: string): string {
  return (
    `Join my Livemark session with code ${code} (the livemark_join tool of the Livemark bridge). ` +
    "Then wait for commands with livemark_wait_for_command and run each new command once: livemark_run runs Markdown-protocol replies in the session, " +
    "livemark_report shows status updates, questions, your reply with its summary, or errors. Report back, " +
    "and keep waiting (call livemark_wait_for_command again, also after a timeout) until I say stop."
  );
}

/** `label` names what is copied; it must not repeat the field's label (that would name two elements). */
function CopyButton({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="lm-button"
      aria-label={`Copy ${label}`}
      disabled={!value}
      onClick={() => {
        void navigator.clipboard?.writeText(value).then(
          () => setCopied(true),
          () => setCopied(false),
        );
      }}
    >
      {copied ? "Copied" : "Copy"}
    </button>
  );
}

export function InviteAgentDialog({ channel, onClose }: { channel: AgentChannel; onClose: () => void }) {
  const state = useSyncExternalStore(channel.subscribe, channel.getState);
  const dialog = useRef<HTMLDialogElement>(null);
  const [address, setAddress] = useState(state.address);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  const reconnect = (value = address) => {
    // Before a code is issued the address only waits for Issue code.
    if (channel.getState().connection === "setup") return;
    if (value.trim() && value.trim() !== channel.getState().address) channel.connect(value.trim());
  };
  // A complete loopback address connects shortly after typing stops (Enter or leaving the field: at once).
  useEffect(() => {
    if (!isLoopbackAddress(address.trim()) || address.trim() === channel.getState().address) return;
    const timer = setTimeout(() => reconnect(address), 600);
    return () => clearTimeout(timer);
  }, [address]);
  const code = state.code ?? "";
  const prompt = code ? agentPrompt(code) : "";
  const ended = state.connection === "ended";
  const setup = state.connection === "setup";
  return (
    <dialog
      ref={dialog}
      className="lm-dialog lm-dialog--wide"
      aria-labelledby="lm-invite-title"
      onClose={onClose}
      onCancel={onClose}
    >
      <h2 id="lm-invite-title">Invite agent</h2>
      <p className="lm-dialog__hint">
        Bring the agent you already use (any MCP client) into this session. Start the bridge with{" "}
        <code>npm run bridge</code>, then paste the prompt into your agent. Its code runs in this session's sandbox
        under this session's rights; you can end the channel at any moment.
      </p>
      <AgentRightsFields channel={channel} state={state} />
      <div className="lm-field">
        <label htmlFor="lm-invite-address">Bridge address</label>
        <div className="lm-invite__row">
          <input
            id="lm-invite-address"
            value={address}
            spellCheck={false}
            onChange={(event) => setAddress(event.target.value)}
            onBlur={() => reconnect()}
            onKeyDown={(event) => {
              if (event.key === "Enter") {
                event.preventDefault();
                reconnect();
              }
            }}
          />
          <CopyButton label="address" value={address} />
        </div>
        {!isLoopbackAddress(address.trim()) && (
          <small className="lm-notice--error">
            The bridge runs on this computer: use ws://127.0.0.1:PORT/page or ws://localhost:PORT/page.
          </small>
        )}
      </div>
      <div className="lm-field">
        <label htmlFor="lm-invite-code">Channel code</label>
        <div className="lm-invite__row">
          <input
            id="lm-invite-code"
            readOnly
            value={code}
            placeholder={ended ? "ended" : "—"}
            onFocus={(event) => event.target.select()}
          />
          <CopyButton label="code" value={code} />
        </div>
        <small>
          A code admits one agent: once an agent joins, a new code shows here, and any further agent waits for you to
          press Admit. An unused code expires after 10 minutes.
        </small>
      </div>
      <div className="lm-field">
        <label htmlFor="lm-invite-prompt">Prompt for your agent</label>
        <div className="lm-invite__row">
          <textarea id="lm-invite-prompt" readOnly value={prompt} onFocus={(event) => event.target.select()} />
          <CopyButton label="prompt" value={prompt} />
        </div>
      </div>
      <p aria-live="polite" className="lm-field">
        <span>
          Connection:{" "}
          <span className={`lm-invite__state lm-invite__state--${state.connection}`}>
            {CONNECTION_WORDS[state.connection]}
          </span>
          {state.connection === "joined" && state.agents > 1 ? ` (${state.agents} agents)` : ""}
        </span>
        {state.connection === "not-running" && (
          <small>Start it with npm run bridge; this page retries every few seconds.</small>
        )}
      </p>
      <AgentAdmissions channel={channel} state={state} />
      <div className="lm-dialog__actions">
        {state.connection === "expired" && (
          <button type="button" className="lm-button" onClick={() => channel.newCode()}>
            New code
          </button>
        )}
        {setup ? (
          <button
            type="button"
            className="lm-button lm-button--primary"
            disabled={!isLoopbackAddress(address.trim())}
            onClick={() => channel.connect(address.trim())}
          >
            Issue code
          </button>
        ) : ended ? (
          <button type="button" className="lm-button" onClick={() => channel.connect(address.trim() || state.address)}>
            New channel
          </button>
        ) : (
          <button type="button" className="lm-button lm-button--stop" onClick={() => channel.end()}>
            End channel
          </button>
        )}
        <button type="button" className="lm-button lm-button--primary" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </div>
    </dialog>
  );
}
