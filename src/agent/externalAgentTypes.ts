import type { ReportSummary, ReportKind } from "../wire/bridge";

/**
 * The timeline's share of an invited agent (DESIGN.md §4b): what the person
 * sent it and what it reported. Types only; the channel lives in
 * agentChannel.ts and loads when the person invites an agent.
 */

export type { ReportSummary, ReportKind };

/** On a person's message sent to the invited agent instead of the model. */
export interface ChannelFields {
  /** Sent to the invited agent (absent: to the model). */
  to?: "agent";
  commandId?: string;
  /** What the person had selected, sent along as untrusted context. */
  selection?: { kind: "message" | "mount"; id: string; label: string };
  /** This message answers the agent's question (the question message's id). */
  answers?: string;
  /** The agent that received it (claimed the command). */
  receivedBy?: string;
}

/** An invited agent's report: a status update, a question, its reply (with a summary) or an error. */
export interface AgentReportMessage {
  id: string;
  role: "agent";
  kind: ReportKind;
  text: string;
  commandId: string;
  /** Which agent (its client's name), as the bridge labels it. */
  agent?: string;
  summary?: ReportSummary;
  /** A question's answer, once the person gave it. */
  answer?: string;
  /** On a reply or error: what the page itself recorded while the command was held (beside what the agent claims). */
  observed?: ObservedChanges;
  /** An ACP agent's plan (a status report drawn as a checklist): each update replaces it. */
  plan?: { content: string; status: "pending" | "in_progress" | "completed"; priority?: string }[];
  /** An ACP agent's tool call (a status report drawn with its status). */
  toolCall?: { id: string; title: string; kind?: string; status: "pending" | "in_progress" | "completed" | "failed" };
  /** An ACP agent's permission request: its own options, answered inline (`answer`: the option's name, or "cancelled"). */
  permission?: { optionId: string; name: string; kind: string }[];
  createdAt: number;
}

/**
 * What really happened while an invited agent held a command, from the
 * page's own records: its runs, the mounts they opened, the mounts whose
 * content changed, the capability uses in the audit list.
 */
export interface ObservedChanges {
  runs: { statements: number; errors: string[] }[];
  /** Titles (or "untitled") of the mounts the runs opened. */
  mountsCreated: string[];
  /** Titles of mounts that existed before and whose content changed. */
  mountsUpdated: string[];
  /** "network GET https://… (allowed once)" lines from the audit list. */
  capabilities: string[];
  /** App data keys written (set or deleted); absent in records made before they were kept. */
  dataKeys?: string[];
}

/** What `Agent.runExternal` did. */
export type ExternalRun =
  | { kind: "busy" }
  | {
      kind: "ran";
      state: "done" | "interrupted" | "stopped" | "error";
      /** The runtime feedback as a model's next turn carries it ("" when there was none). */
      feedback: string;
      replyId: string | undefined;
    };
