import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { CONNECTION_WORDS, isLoopbackAddress, type AgentChannel } from "../agent/agentChannel";
import type { AcpConnection, AcpState } from "../agent/acpClient";
import { DEFAULT_ACP_ADDRESS } from "../wire/bridge";
import { AgentAdmissions, AgentRightsFields } from "./agentLink";
import { useChannelState } from "./agentHooks";
import { BRIDGE_COMMAND, bridgePort, clientConfigs, commandWithOrigin, downloadBridge } from "./bridgeSetup";
import { saveFile } from "./saveFile";

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

/** A command to copy: the read-only field (selected whole on focus) and its Copy button. */
function CommandField({ label, copyLabel, value }: { label: string; copyLabel: string; value: string }) {
  return (
    <>
      <input aria-label={label} readOnly value={value} onFocus={(event) => event.target.select()} />
      <CopyButton label={copyLabel} value={value} />
    </>
  );
}

/** Start the bridge: **Download bridge**, the command, and configurations for the common MCP clients. */
function BridgeSetup({ address }: { address: string }) {
  const [problem, setProblem] = useState<string | undefined>();
  const origin = location.origin;
  const port = bridgePort(address);
  const command = port === 4737 ? BRIDGE_COMMAND : `${BRIDGE_COMMAND} --port ${port}`;
  const explicit = commandWithOrigin(origin, port);
  return (
    <section className="lm-field lm-invite__setup" aria-label="Start the bridge">
      <div className="lm-invite__row">
        <button
          type="button"
          className="lm-button"
          onClick={() => {
            setProblem(undefined);
            downloadBridge(saveFile).catch((error: unknown) =>
              setProblem(error instanceof Error ? error.message : String(error)),
            );
          }}
        >
          Download bridge
        </button>
        <CommandField label="Command to start the bridge" copyLabel="command" value={command} />
      </div>
      {problem && <small className="lm-notice--error">{problem} Use npm run bridge from a clone of Livemark.</small>}
      <small>
        One file, nothing to install; the downloaded copy accepts this page ({origin}). Another copy of the file:
      </small>
      <div className="lm-invite__row">
        <CommandField
          label="Command with this page's origin"
          copyLabel="command with this page's origin"
          value={explicit}
        />
      </div>
      <details className="lm-invite__configs">
        <summary>MCP client configurations</summary>
        {clientConfigs(origin, port).map((config, index) => {
          const name = `${config.client} (${config.transport})`;
          return (
            <div key={index} className="lm-field">
              <label htmlFor={`lm-invite-config-${index}`}>
                {name} — {config.where}
              </label>
              <div className="lm-invite__row">
                <textarea
                  id={`lm-invite-config-${index}`}
                  readOnly
                  value={config.text}
                  rows={Math.min(8, config.text.split("\n").length)}
                  onFocus={(event) => event.target.select()}
                />
                <CopyButton label={`${name} configuration`} value={config.text} />
              </div>
            </div>
          );
        })}
      </details>
    </section>
  );
}

/** An example agent command (any ACP agent: Claude Code, Codex and Gemini CLI through their adapters). */
export const ACP_EXAMPLE_AGENT = "npx @zed-industries/claude-code-acp";

export function acpCommand(port: number, agentCommand = ACP_EXAMPLE_AGENT): string {
  return `${BRIDGE_COMMAND}${port === 4737 ? "" : ` --port ${port}`} --acp "${agentCommand}"`;
}

const ACP_CONNECTION_WORDS: Record<AcpConnection, string> = {
  connecting: "connecting to the bridge…",
  "not-running": "bridge not running in ACP mode",
  starting: "starting the agent…",
  ready: "agent connected",
  exited: "the agent stopped",
  ended: "disconnected",
};

/** Invite agent → **Connect an ACP agent**: the bridge's command in ACP mode, the address, Connect. */
export function AcpConnect({
  state,
  port,
  onConnect,
  onDisconnect,
}: {
  state: AcpState | undefined;
  port: number;
  onConnect: (address: string) => void;
  onDisconnect: () => void;
}) {
  const [address, setAddress] = useState(state?.address ?? DEFAULT_ACP_ADDRESS.replace(":4737/", `:${port}/`));
  const command = acpCommand(port);
  const connected = state !== undefined && state.connection !== "ended" && state.connection !== "not-running";
  return (
    <section className="lm-field lm-invite__setup" aria-labelledby="lm-acp-title">
      <h3 id="lm-acp-title" className="lm-dialog__subtitle">
        Connect an ACP agent
      </h3>
      <small>
        Or let this page drive an agent that speaks the Agent Client Protocol (Claude Code, Codex and Gemini CLI through
        their ACP adapters): start the bridge in ACP mode with your agent's command, then Connect. Its messages, plan
        and tool calls show here; its code runs under the rights above.
      </small>
      <div className="lm-invite__row">
        <CommandField label="Command to start the bridge in ACP mode" copyLabel="ACP command" value={command} />
      </div>
      <div className="lm-invite__row">
        <input
          aria-label="ACP address"
          value={address}
          spellCheck={false}
          onChange={(event) => setAddress(event.target.value)}
        />
        {connected ? (
          <button type="button" className="lm-button lm-button--stop" onClick={onDisconnect}>
            Disconnect
          </button>
        ) : (
          <button type="button" className="lm-button" onClick={() => onConnect(address.trim())}>
            Connect
          </button>
        )}
      </div>
      <p aria-live="polite">
        ACP agent:{" "}
        <span className="lm-invite__state">
          {state ? ACP_CONNECTION_WORDS[state.connection] : "not connected"}
          {state?.connection === "ready" && state.agentName ? ` (${state.agentName})` : ""}
        </span>
        {state?.problem && state.connection !== "ready" ? <small> {state.problem}</small> : null}
      </p>
    </section>
  );
}

export function InviteAgentDialog({ channel, onClose }: { channel: AgentChannel; onClose: () => void }) {
  const acp = useSyncExternalStore(channel.subscribe, channel.getState).acp;
  // Connect an ACP agent: the link (and the ACP SDK) loads now, and joins this room.
  const connectAcp = (value: string) =>
    void import("./acpSetup").then((module) => {
      const link = acp ?? module.makeAcpClient(channel);
      channel.attachAcp(link);
      link.connect(value);
    });
  const state = useSyncExternalStore(channel.subscribe, channel.getState);
  const acpState = useChannelState(acp);
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
        Bring the agent you already use (any MCP client) into this session: download the bridge, run it with Node.js 20
        or newer, add it to your agent, then paste the prompt. Its code runs in this session's sandbox under this
        session's rights; you can end the channel at any moment.
      </p>
      <BridgeSetup address={address} />
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
          <small>
            Start it with {BRIDGE_COMMAND} (or npm run bridge in a clone); this page retries every few seconds.
          </small>
        )}
      </p>
      <AgentAdmissions channel={channel} state={state} />
      <AcpConnect
        state={acpState}
        port={bridgePort(address)}
        onConnect={connectAcp}
        onDisconnect={() => acp?.disconnect()}
      />
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
