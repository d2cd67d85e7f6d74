import type { ProtocolEvent } from "../protocol/types";
import type { BlockEvent } from "../wire/types";
import type { BlockView, ProviderThinkingStart } from "./reply";

/**
 * The one place where a reply's protocol events are routed to the realm:
 * turns (`Turn`, turn.ts), Revive (saved blocks replayed as events), the
 * in-process test realm and the benches all go through it.
 *
 * Code and data block events go to `send` unchanged, in protocol order (the
 * parser's events are the wire's `BlockEvent`s); text blocks stay on the
 * host. What is not a block event (a malformed fence header, thinking) is
 * returned for the caller.
 *
 * One router per reply: it remembers which block indexes are code or data,
 * because a `block-delta` does not say.
 */
export function createBlockRouter(
  send: (event: BlockEvent) => void,
): <E extends ProtocolEvent | ProviderThinkingStart>(events: readonly E[]) => E[] {
  const realmBlocks = new Set<number>();
  return <E extends ProtocolEvent | ProviderThinkingStart>(events: readonly E[]) => {
    const rest: E[] = [];
    for (const event of events) {
      switch (event.type) {
        case "block-start":
          if (event.kind === "text") break;
          realmBlocks.add(event.index);
          send(
            event.kind === "code"
              ? { type: "block-start", index: event.index, kind: "code", line: event.line }
              : { type: "block-start", index: event.index, kind: "data", id: event.id, line: event.line },
          );
          break;
        case "block-delta":
          if (realmBlocks.has(event.index)) send(event);
          break;
        case "block-end":
          if (realmBlocks.delete(event.index)) send(event);
          break;
        default:
          rest.push(event);
      }
    }
    return rest;
  };
}

/** A saved block as the events that streamed it (Revive replays them through the same router). */
export function replayBlock(block: BlockView): ProtocolEvent[] {
  const start: ProtocolEvent =
    block.kind === "text"
      ? { type: "block-start", index: block.index, kind: "text", line: block.line }
      : block.kind === "code"
        ? { type: "block-start", index: block.index, kind: "code", lang: block.lang, line: block.line }
        : { type: "block-start", index: block.index, kind: "data", id: block.id, line: block.line };
  const text = block.kind === "text" ? block.text : block.source;
  return [
    start,
    ...(text ? [{ type: "block-delta", index: block.index, text } as const] : []),
    { type: "block-end", index: block.index, unterminated: block.kind === "text" ? false : block.unterminated },
  ];
}
