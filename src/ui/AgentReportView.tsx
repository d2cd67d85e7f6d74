import { memo, useState } from "react";
import type { AgentReportMessage, ObservedChanges, ReportSummary } from "../agent/externalAgentTypes";
import { Markdown } from "./LazyMarkdown";
import { useAgentChannelActions } from "./agentChannelContext";
import "./agent.css";

/**
 * An invited agent's reports in the timeline (DESIGN.md §4b): status
 * updates, questions (answered inline; the answer is the agent's next
 * command), replies with their summary, errors; an ACP agent's plan (a
 * checklist) and tool calls (with their status). The agent's runs are
 * ordinary replies and show as such.
 */

const KIND_LABEL: Record<AgentReportMessage["kind"], string> = {
  status: "Agent status",
  question: "Agent question",
  reply: "Agent reply",
  error: "Agent error",
};

const PLAN_WORD = { pending: "to do", in_progress: "in progress", completed: "done" } as const;
/** An ACP tool call's status, in words. */
const TOOL_WORD = { pending: "pending", in_progress: "running", completed: "completed", failed: "failed" } as const;

const STATUS_WORD: Record<ReportSummary["status"], string> = { done: "Done", partial: "Partly done", failed: "Failed" };

/** Does the page's record show a change the agent claims? Titles compared loosely ("chart" finds "Sales chart"). */
function recorded(key: "mounts" | "data" | "grants", claim: string, observed: ObservedChanges): boolean | undefined {
  const words = claim.toLowerCase().trim();
  const tokens = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
  const claimed = new Set(tokens(claim));
  const near = (seen: string) => {
    const other = seen.toLowerCase();
    return other.includes(words) || words.includes(other) || tokens(other).some((token) => claimed.has(token));
  };
  if (key === "mounts") return [...observed.mountsCreated, ...observed.mountsUpdated].some(near);
  if (key === "grants") return observed.capabilities.some(near);
  // App data keys are names: the very key. Records made before keys were kept have nothing to compare.
  return observed.dataKeys ? observed.dataKeys.includes(claim.trim()) : undefined;
}

function SummaryView({ summary, observed }: { summary: ReportSummary; observed?: ObservedChanges }) {
  const changed = summary.changed ?? {};
  const rows = (["mounts", "data", "grants"] as const).filter((key) => (changed[key]?.length ?? 0) > 0);
  const unmatched = (key: "mounts" | "data" | "grants") =>
    observed ? changed[key]!.filter((claim) => recorded(key, claim, observed) === false) : [];
  return (
    <section className="lm-agent-summary" aria-label="Reply summary">
      <p>
        <strong>Status:</strong> {STATUS_WORD[summary.status]}
      </p>
      {rows.length > 0 && (
        <div>
          <strong>What changed:</strong>
          <ul>
            {rows.map((key) => (
              <li key={key}>
                {key}: {changed[key]!.join(", ")}
                {unmatched(key).length > 0 && (
                  <small className="lm-agent__unmatched">
                    {" "}
                    ({unmatched(key).join(", ")}: no matching change recorded)
                  </small>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
      {(summary.checks?.length ?? 0) > 0 && (
        <div>
          <strong>Checks:</strong>
          <ul>
            {summary.checks!.map((check, index) => (
              <li key={index}>{check}</li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

/** What really happened while the command was held, from the page's own records. */
function ObservedView({ observed }: { observed: ObservedChanges }) {
  const statements = observed.runs.reduce((sum, run) => sum + run.statements, 0);
  const errors = observed.runs.flatMap((run) => run.errors);
  const lines = [
    observed.runs.length === 0
      ? "No runs."
      : `${observed.runs.length} run${observed.runs.length === 1 ? "" : "s"}: ${statements} statement${statements === 1 ? "" : "s"}, ${errors.length} error${errors.length === 1 ? "" : "s"}${errors.length ? ` (${errors.slice(0, 3).join("; ")})` : ""}.`,
    observed.mountsCreated.length > 0 && `Mounts created: ${observed.mountsCreated.join(", ")}.`,
    observed.mountsUpdated.length > 0 && `Mounts updated: ${observed.mountsUpdated.join(", ")}.`,
    observed.capabilities.length > 0 && `Capabilities used: ${observed.capabilities.join("; ")}.`,
    (observed.dataKeys?.length ?? 0) > 0 && `App data written: ${observed.dataKeys!.join(", ")}.`,
  ].filter((line): line is string => typeof line === "string");
  return (
    <section className="lm-agent-summary lm-agent-observed" aria-label="What really happened">
      <strong>What really happened</strong> <small>(Livemark's own record)</small>
      <ul>
        {lines.map((line, index) => (
          <li key={index}>{line}</li>
        ))}
      </ul>
    </section>
  );
}

function AnswerForm({ questionId }: { questionId: string }) {
  const { answer, open } = useAgentChannelActions();
  const [text, setText] = useState("");
  if (!open) return <p className="lm-agent__hint">The channel is closed: this question can no longer be answered.</p>;
  return (
    <form
      className="lm-agent__answer"
      onSubmit={(event) => {
        event.preventDefault();
        if (!text.trim()) return;
        answer(questionId, text);
        setText("");
      }}
    >
      <label>
        <span className="lm-visually-hidden">Your answer</span>
        <input
          value={text}
          placeholder="Your answer…"
          aria-label="Your answer"
          onChange={(event) => setText(event.target.value)}
        />
      </label>
      <button type="submit" className="lm-button lm-button--primary" disabled={!text.trim()}>
        Answer
      </button>
    </form>
  );
}

/** An ACP agent's permission request, answered inline with one of the agent's own options. */
function PermissionView({ message, who }: { message: AgentReportMessage; who: string }) {
  const { answer, open } = useAgentChannelActions();
  return (
    <section className="lm-agent lm-agent--question" aria-label="Agent permission request" data-message-id={message.id}>
      <header className="lm-agent__tag">Permission{who}</header>
      <p>{message.text}</p>
      {message.answer !== undefined ? (
        <p className="lm-agent__answered">
          {message.answer === "cancelled"
            ? "Cancelled: the agent no longer waits for an answer."
            : `You chose: ${message.answer}`}
        </p>
      ) : !open ? (
        <p className="lm-agent__hint">The agent is not connected: this request can no longer be answered.</p>
      ) : (
        <p className="lm-agent-approval__actions">
          {message.permission!.map((option) => (
            <button
              key={option.optionId}
              type="button"
              className={`lm-button${option.kind.startsWith("reject") ? " lm-button--stop" : option.kind === "allow_once" ? " lm-button--primary" : ""}`}
              onClick={() => answer(message.id, option.optionId)}
            >
              {option.name}
            </button>
          ))}
        </p>
      )}
    </section>
  );
}

export const AgentReportView = memo(function AgentReportView({ message }: { message: AgentReportMessage }) {
  const label = KIND_LABEL[message.kind];
  const who = message.agent ? ` · ${message.agent}` : "";
  if (message.permission) return <PermissionView message={message} who={who} />;
  if (message.plan) {
    // An ACP agent's plan: a checklist, updated in place.
    return (
      <section className="lm-agent lm-agent--status lm-agent-plan" aria-label="Agent plan" data-message-id={message.id}>
        <header className="lm-agent__tag">Plan{who}</header>
        <ul>
          {message.plan.map((entry, index) => (
            <li key={index} className={`lm-agent-plan__entry lm-agent-plan__entry--${entry.status}`}>
              <input
                type="checkbox"
                readOnly
                disabled
                checked={entry.status === "completed"}
                aria-label={`${entry.content} (${PLAN_WORD[entry.status]})`}
              />{" "}
              {entry.content}
              {entry.status === "in_progress" && <small> (in progress)</small>}
            </li>
          ))}
        </ul>
      </section>
    );
  }
  if (message.toolCall) {
    return (
      <p
        className={`lm-agent lm-agent--status lm-agent-tool lm-agent-tool--${message.toolCall.status}`}
        aria-label="Agent tool call"
        data-message-id={message.id}
      >
        <span className="lm-agent__tag">Tool{who}</span> {message.toolCall.title}{" "}
        <span className="lm-agent-tool__status">{TOOL_WORD[message.toolCall.status]}</span>
      </p>
    );
  }
  if (message.kind === "status") {
    return (
      <p className="lm-agent lm-agent--status" aria-label={label} data-message-id={message.id}>
        <span className="lm-agent__tag">Agent{who}</span> {message.text}
      </p>
    );
  }
  return (
    <article
      className={`lm-agent lm-agent--${message.kind}`}
      aria-label={label}
      data-message-id={message.id}
      role={message.kind === "error" ? "alert" : undefined}
    >
      <header className="lm-agent__tag">
        {label}
        {who}
      </header>
      {message.kind === "reply" ? <Markdown text={message.text} /> : <p>{message.text}</p>}
      {message.summary && <SummaryView summary={message.summary} observed={message.observed} />}
      {message.observed && <ObservedView observed={message.observed} />}
      {message.kind === "question" &&
        (message.answer !== undefined ? (
          <p className="lm-agent__answered">
            You answered: <q>{message.answer}</q>
          </p>
        ) : (
          <AnswerForm questionId={message.id} />
        ))}
    </article>
  );
});
