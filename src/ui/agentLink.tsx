import type { AgentChannel, AgentChannelState, SessionChannel, SessionChannelState } from "../agent/agentChannel";
import { Markdown } from "./LazyMarkdown";
import { useChannelState } from "./agentHooks";
import "./agent.css";

/**
 * The session view's side of an invited agent, drawn only once there is
 * one (App.tsx loads this file on demand): the bar above the composer,
 * admissions, its rights and the runs waiting for the person. What the
 * session view needs on every page (the channel's state, the timeline
 * selection) is agentHooks.ts.
 */

/**
 * Agents asking to join after the code's one agent: the person answers each
 * with **Admit** or **Refuse** (the page enforces it; the bridge cannot).
 */
export function AgentAdmissions({ channel, state }: { channel: SessionChannel; state: SessionChannelState }) {
  if (state.admissions.length === 0) return null;
  return (
    <div className="lm-agent-admissions" role="group" aria-label="Agents asking to join">
      {state.admissions.map((admission) => (
        <p key={admission.id} className="lm-agent-admission">
          <span>
            Another agent asks to join this session: <strong>{admission.agent}</strong>. It would receive your messages
            and run code here.
          </span>
          <button type="button" className="lm-button" onClick={() => channel.admit(admission.id)}>
            Admit
          </button>
          <button type="button" className="lm-button lm-button--stop" onClick={() => channel.refuse(admission.id)}>
            Refuse
          </button>
        </p>
      ))}
    </div>
  );
}

export function AgentComposerBar({
  channel,
  state,
  selectionLabel,
  onClearSelection,
}: {
  channel: SessionChannel;
  state: SessionChannelState;
  selectionLabel: string | undefined;
  onClearSelection: () => void;
}) {
  return (
    <div className="lm-agent-bar">
      <label className="lm-agent-target">
        <input
          type="checkbox"
          checked={state.sendToAgent}
          onChange={(event) => channel.setSendToAgent(event.target.checked)}
        />
        Send to the agent{" "}
        {!state.sendToAgent
          ? "(messages go to the model)"
          : state.agents === 0
            ? "(it is away: messages wait for it)"
            : ""}
      </label>
      {state.sendToAgent && (
        <p className="lm-agent-context">
          {selectionLabel ? (
            <>
              <span>Context: {selectionLabel}, sent as untrusted content apart from your instruction.</span>
              <button type="button" className="lm-button lm-button--quiet" onClick={onClearSelection}>
                Clear selection
              </button>
            </>
          ) : (
            <span>Click a message or a mounted UI to send it along as context.</span>
          )}
        </p>
      )}
    </div>
  );
}

/**
 * The room's rights for the invited agent (**Read the session**, **Run
 * code**, **Confirm each run**): in Invite agent before a code is issued,
 * and at any time there and in Session settings → **Invited agent**. The
 * page enforces them; the bridge cannot.
 */
export function AgentRightsFields({ channel, state }: { channel: AgentChannel; state: AgentChannelState }) {
  const { rights } = state;
  return (
    <fieldset className="lm-field lm-agent-rights">
      <legend>What the agent may do</legend>
      <label>
        <input
          type="checkbox"
          checked={rights.read}
          onChange={(event) => channel.setRights({ read: event.target.checked })}
        />{" "}
        Read the session
      </label>
      <label>
        <input
          type="checkbox"
          checked={rights.run}
          onChange={(event) => channel.setRights({ run: event.target.checked })}
        />{" "}
        Run code
      </label>
      <label>
        <input
          type="checkbox"
          checked={rights.confirm}
          disabled={!rights.run}
          onChange={(event) => channel.setRights({ confirm: event.target.checked })}
        />{" "}
        Confirm each run
      </label>
      <small>
        Its code asks for the network, files, tools, storage and model calls under this session's rules, as the model's
        code does. Each decision is in the audit list.
      </small>
    </fieldset>
  );
}

/** Session settings → **Invited agent**: the rights of this tab's channel. */
export function InvitedAgentSettings({ channel }: { channel: AgentChannel | undefined }) {
  const state = useChannelState(channel);
  return (
    <section className="lm-field" aria-label="Invited agent">
      <h3 className="lm-dialog__subtitle">Invited agent</h3>
      {channel && state && state.connection !== "ended" ? (
        <AgentRightsFields channel={channel} state={state} />
      ) : (
        <p className="lm-dialog__hint">
          No agent is invited in this tab. Invite agent lets you choose its rights first.
        </p>
      )}
    </section>
  );
}

/**
 * Confirm each run: the run the agent asks for, held until the person
 * answers — its Markdown (code highlighted) and the message it answers,
 * with **Allow once** and **Reject**.
 */
export function AgentRunApprovals({ channel, state }: { channel: SessionChannel; state: SessionChannelState }) {
  return (
    <RunApprovals
      runs={state.pendingRuns}
      onAllow={(id) => channel.allowRun(id)}
      onReject={(id) => channel.rejectRun(id)}
    />
  );
}

/** A run an agent asks for: the invited agent's (with its command), or an in-browser agent's (WebMCP). */
export interface RunToApprove {
  id: string;
  agent: string;
  markdown: string;
  commandId?: string;
  commandText?: string;
}

/** The runs waiting in the timeline for **Allow once** or **Reject** (status: Waiting for permission). */
export function RunApprovals({
  runs,
  onAllow,
  onReject,
}: {
  runs: readonly RunToApprove[];
  onAllow: (id: string) => void;
  onReject: (id: string) => void;
}) {
  if (runs.length === 0) return null;
  return (
    <>
      {runs.map((pending) => (
        <section key={pending.id} className="lm-agent lm-agent-approval" aria-label="Run waiting for permission">
          <header className="lm-agent__tag">
            {pending.agent} asks to run this
            {pending.commandText !== undefined ? (
              <>
                , answering your message <q>{pending.commandText.slice(0, 300)}</q>
              </>
            ) : pending.commandId !== undefined ? (
              ` (command ${pending.commandId})`
            ) : (
              ""
            )}
          </header>
          <div className="lm-agent-approval__markdown">
            <Markdown text={pending.markdown} />
          </div>
          <p className="lm-agent-approval__actions">
            <button type="button" className="lm-button lm-button--primary" onClick={() => onAllow(pending.id)}>
              Allow once
            </button>
            <button type="button" className="lm-button lm-button--stop" onClick={() => onReject(pending.id)}>
              Reject
            </button>
          </p>
        </section>
      ))}
    </>
  );
}
