/** Shared by tests (Node only): replies built as the agent builds them, from protocol and realm events. */
import { applyExecEvent, applyProtocolEvent, emptyReply, type ReplyView } from "./reply";

/** A reply whose first block (a code fence at line 1) has its first statement, on line 2, running. */
export function replyWithStatement(source = "for (…) console.log(i)"): ReplyView {
  const reply = applyProtocolEvent(emptyReply(), {
    type: "block-start",
    index: 0,
    kind: "code",
    lang: "ts",
    line: 1,
  } as never);
  return applyExecEvent(reply, { type: "statement-start", block: 0, statement: 0, line: 2, endLine: 2, source });
}
