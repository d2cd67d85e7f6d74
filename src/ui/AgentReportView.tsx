import { memo, useState } from "react";
import type { AgentReportMessage, ReportSummary } from "../agent/externalAgentTypes";
import { Markdown } from "./LazyMarkdown";
import { useAgentChannelActions } from "./agentChannelContext";
import "./agent.css";

/**
 * An invited agent's reports in the timeline (DESIGN.md §4b): status
 * updates, questions (answered inline; the answer is the agent's next
 * command), replies with their summary, errors. The agent's runs are
 * ordinary replies and show as such.
 */

const KIND_LABEL: Record<AgentReportMessage["kind"], string> = {
  status: "Agent status",
  question: "Agent question",
  reply: "Agent reply",
  error: "Agent error",
};

const STATUS_WORD: Record<ReportSummary["status"], string> = { done: "Done", partial: "Partly done", failed: "Failed" };

function SummaryView({ summary }: { summary: ReportSummary }) {
  const changed = summary.changed ?? {};
  const rows = (["mounts", "data", "grants"] as const).filter((key) => (changed[key]?.length ?? 0) > 0);
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

export const AgentReportView = memo(function AgentReportView({ message }: { message: AgentReportMessage }) {
  const label = KIND_LABEL[message.kind];
  const who = message.agent ? ` · ${message.agent}` : "";
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
      {message.summary && <SummaryView summary={message.summary} />}
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
