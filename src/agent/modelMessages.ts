import type { ModelMessage } from "ai";
import { userContent } from "./attachments";
import { IMPORTED_END, IMPORTED_START, escapeImportedText, importedInstructionMessage } from "./importedContent";
import { answerForModel } from "./thinking";
import type { ChatMessage } from "./types";

/** What the model reads after a reply the person stopped (runtime context, not the person's words). */
export const STOPPED_NOTE =
  "[runtime] The person pressed Stop during the reply above: it ends where they stopped it, and code it had not run yet did not run.";

/**
 * The timeline as the model reads it. Pure. Messages that came from outside
 * (`isImported`) go between the imported-content markers, with any look-alike
 * of a marker in their text escaped; an applied imported instruction goes
 * first inside that bracket. Thinking, notices and the invited agent's
 * reports are never sent.
 */
export function toModelMessages(
  timeline: readonly ChatMessage[],
  isImported: (message: ChatMessage) => boolean,
  importedInstruction?: string,
): ModelMessage[] {
  const messages: ModelMessage[] = [];
  let inImported = false;
  if (importedInstruction) {
    messages.push(
      { role: "user", content: IMPORTED_START },
      { role: "user", content: importedInstructionMessage(importedInstruction) },
    );
    inImported = true;
  }
  for (const message of timeline) {
    const imported = isImported(message);
    if (imported !== inImported) {
      messages.push({ role: "user", content: imported ? IMPORTED_START : IMPORTED_END });
      inImported = imported;
    }
    // Imported text cannot write the bracket's markers: it would close the bracket and speak as the person.
    const text = imported ? escapeImportedText : (value: string) => value;
    switch (message.role) {
      case "user": {
        const content = userContent(message.text, message.attachments);
        messages.push({
          role: "user",
          content:
            typeof content === "string"
              ? text(content)
              : content.map((part) => (part.type === "text" ? { ...part, text: text(part.text) } : part)),
        } as ModelMessage);
        break;
      }
      case "assistant":
        // Thinking is never sent back (providers ask for that); an all-thinking reply sends nothing.
        if (message.text) {
          const answer = answerForModel(message.text);
          if (answer.trim()) messages.push({ role: "assistant", content: text(answer) });
        }
        // The person pressed Stop: the model hears it, or it takes the cut reply for what it meant to say.
        if (message.state === "stopped" && !imported) messages.push({ role: "user", content: STOPPED_NOTE });
        break;
      case "feedback":
        messages.push({ role: "user", content: text(message.text) });
        break;
      case "notice":
      case "agent":
        break;
      default: {
        const never: never = message;
        return never;
      }
    }
  }
  if (inImported) messages.push({ role: "user", content: IMPORTED_END });
  return messages;
}
