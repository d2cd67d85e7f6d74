import { useCallback, useContext, useEffect, useState } from "react";
import type { AgentChannel } from "../agent/agentChannel";
import type { SessionController } from "../session/sessionController";
import { MountsContext } from "./mounts";

/**
 * The page's invited-agent channel (DESIGN.md §4b): made when the person
 * opens Invite agent (the channel code and zod load then), ended when the
 * person opens another session or closes the tab.
 */
export function useInviteAgent(controller: SessionController) {
  const mounts = useContext(MountsContext);
  const [channel, setChannel] = useState<AgentChannel | undefined>();
  const [dialogOpen, setDialogOpen] = useState(false);
  const sessionId = useSyncedSessionId(controller);

  const open = useCallback(async () => {
    let current = channel;
    if (!current || !current.active || current.session !== controller.getState().current?.id) {
      current?.end();
      const { AgentChannel } = await import("../agent/agentChannel");
      current = new AgentChannel({
        session: () => {
          const session = controller.getState().current;
          return session ? { id: session.id, title: session.title } : undefined;
        },
        agent: () => controller.getState().agent,
        mountSnapshot: (mountId) => mounts?.registry.get(mountId)?.toSnapshot(),
        mountsApplied: async () => {
          // The realm sent its mount frames before the run settled; the inbox may still be applying them.
          for (let frame = 0; frame < 300 && (mounts?.pendingMounts?.() ?? 0) > 0; frame += 1)
            await new Promise((resolve) => setTimeout(resolve, 16));
        },
      });
      current.connect();
      setChannel(current);
    }
    setDialogOpen(true);
  }, [channel, controller, mounts]);

  // The channel belongs to its session: opening another ends it.
  useEffect(() => {
    if (channel?.active && channel.session !== undefined && channel.session !== sessionId) channel.end();
  }, [channel, sessionId]);

  // Closing the tab ends the channel (the socket closing tells the bridge too).
  useEffect(() => {
    if (!channel) return;
    const end = () => channel.end();
    window.addEventListener("pagehide", end);
    return () => window.removeEventListener("pagehide", end);
  }, [channel]);

  return { channel, dialogOpen, open, close: () => setDialogOpen(false) };
}

function useSyncedSessionId(controller: SessionController): string | undefined {
  const [id, setId] = useState(controller.getState().current?.id);
  useEffect(() => controller.subscribe(() => setId(controller.getState().current?.id)), [controller]);
  return id;
}
