import { runningStatement } from "./reply";
import type { ReviveTarget } from "./revive";
import type { ChatMessage } from "./types";

/**
 * Where a mount that just opened is shown: in the reply whose code runs (a
 * turn's, else the one Revive re-runs, else the last reply), after the block
 * that opened it. Pure. Returns the new messages and whether the mount
 * replaced the restored (inert) mounts of the reply Revive re-runs — Revive
 * makes a reply's mounts anew, with new ids, so the first one that opens
 * replaces them; undefined when the mount is known already or there is no
 * reply to put it in.
 */
export function placeMount(
  messages: readonly ChatMessage[],
  mount: { mountId: string; title?: string },
  running: { replyId: string | undefined; revive: ReviveTarget | undefined },
): { messages: ChatMessage[]; replacedRestored: boolean } | undefined {
  const known = messages.some(
    (item) => item.role === "assistant" && item.reply.mounts?.some((existing) => existing.mountId === mount.mountId),
  );
  if (known) return undefined;
  const { revive } = running;
  const replacing = revive?.replaces?.findIndex((entry) => entry.title !== undefined && entry.title === mount.title);
  if (revive?.replaces && replacing !== undefined && replacing >= 0) {
    // An edited block's mount that the realm could not take over (a restored panel): the new one takes its place.
    const [old] = revive.replaces.splice(replacing, 1);
    return {
      messages: messages.map((item) =>
        item.id !== revive.replyId || item.role !== "assistant"
          ? item
          : {
              ...item,
              reply: {
                ...item.reply,
                mounts: (item.reply.mounts ?? []).map((entry) =>
                  entry.mountId === old.mountId ? { ...entry, mountId: mount.mountId, title: mount.title } : entry,
                ),
              },
            },
      ),
      replacedRestored: false,
    };
  }
  const target =
    running.replyId ?? revive?.replyId ?? [...messages].reverse().find((item) => item.role === "assistant")?.id;
  if (!target) return undefined;
  const replacedRestored = revive !== undefined && revive.replyId === target && !revive.replaced;
  const placed = messages.map((item) => {
    if (item.id !== target || item.role !== "assistant") return item;
    const statement = runningStatement(item.reply);
    const afterBlock = statement?.block ?? (revive?.replyId === target ? revive.block : undefined) ?? -1;
    const mounts = [
      ...(replacedRestored ? [] : (item.reply.mounts ?? [])),
      { mountId: mount.mountId, afterBlock, title: mount.title },
    ];
    return { ...item, reply: { ...item.reply, mounts } };
  });
  return { messages: placed, replacedRestored };
}
