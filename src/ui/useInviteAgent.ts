import { useCallback, useContext, useEffect, useRef, useState } from "react";
import type { AgentChannel } from "../agent/agentChannel";
import type { SessionController } from "../session/sessionController";
import { onAppDataWritten } from "../capabilities/storage/uncommittedWrites";
import { CapabilitiesContext } from "./capabilities";
import { MountsContext } from "./mounts";
import { useChannelState } from "./agentHooks";
import { whenMountsApplied } from "./whenMountsApplied";

/**
 * The page's invited-agent channel (DESIGN.md §4b): made when the person
 * opens Invite agent (the channel code and zod load then). It follows the
 * person from session to session; a reload takes it up again from this
 * tab's sessionStorage (the bridge keeps it two minutes); only End channel,
 * closing the tab (after that grace) or an unused code's expiry end it.
 *
 * Also the person's ACP agent (`acp`, src/agent/acpClient.ts), attached to
 * the channel by the dialog when they press Connect under **Connect an ACP
 * agent** (acpSetup.ts and the ACP SDK load then); the room's rights are the
 * channel's. A reload reconnects a tab that was connected (its address is in
 * this tab's sessionStorage) and takes up the agent's session
 * (`session/load`, when the agent supports it); the ACP code loads only then.
 */
const STORED_KEY = "livemark.agentChannel";
/** acpClient.ts's ACP_STORAGE_KEY, spelled here so that the first chunk does not import the ACP SDK. */
const ACP_STORED_KEY = "livemark.acpLink";
/** The channel's code (and zod) load once, on first use. */
const channelModule = () => import("../agent/agentChannel");

export function useInviteAgent(controller: SessionController) {
  const mounts = useContext(MountsContext);
  const capabilities = useContext(CapabilitiesContext);
  const [channel, setChannel] = useState<AgentChannel | undefined>();
  const [dialogOpen, setDialogOpen] = useState(false);
  const sessionId = useSyncedSessionId(controller);
  // The page follows the channel and the ACP agent attached to it (connected, its model and mode).
  const acp = useChannelState(channel)?.acp;

  const make = useCallback(async (): Promise<AgentChannel> => {
    const { AgentChannel } = await channelModule();
    return new AgentChannel({
      session: () => {
        const session = controller.getState().current;
        return session ? { id: session.id, title: session.title } : undefined;
      },
      agent: () => controller.getState().agent,
      mountSnapshot: (mountId) => mounts?.registry.get(mountId)?.toSnapshot(),
      // The realm sent its mount frames before the run settled; the inbox may still be applying them.
      mountsApplied: () => whenMountsApplied(mounts?.mountsApplied),
      audit: (entry) => capabilities?.record({ ...entry }),
      capabilityUses: (since) =>
        (capabilities?.getState().audit ?? [])
          .filter((entry) => entry.at >= since && entry.capability !== "agent" && entry.fromFile !== true)
          .map((entry) => `${entry.capability} ${entry.method} ${entry.url} (${entry.decision})`.slice(0, 300)),
      onAppDataWritten,
      recordIn: (id, message) => controller.recordInSession(id, message),
      storage: typeof sessionStorage === "undefined" ? undefined : sessionStorage,
    });
  }, [controller, mounts, capabilities]);

  const open = useCallback(async () => {
    let current = channel;
    // An ended channel stays in the dialog (New channel); otherwise the open one is shown.
    if (!current) {
      current = await make();
      setChannel(current);
    }
    setDialogOpen(true);
  }, [channel, make]);

  // A reload: this tab's channel resumes, and its ACP agent reconnects, once a session is open.
  const resumed = useRef(false);
  useEffect(() => {
    if (resumed.current || sessionId === undefined || channel) return;
    resumed.current = true;
    let raw: string | null = null;
    let acpRaw: string | null = null;
    try {
      raw = sessionStorage.getItem(STORED_KEY);
      acpRaw = sessionStorage.getItem(ACP_STORED_KEY);
    } catch {
      return;
    }
    if (!raw && !acpRaw) return;
    void (async () => {
      const { storedChannel } = await channelModule();
      const stored = raw ? storedChannel(sessionStorage) : undefined;
      if (raw && !stored) sessionStorage.removeItem(STORED_KEY);
      if (!stored && !acpRaw) return;
      const current = await make();
      setChannel(current);
      if (stored) current.resume(stored);
      if (acpRaw) {
        // The link connects to the address it had and loads the agent's session (acpClient.ts).
        const { makeAcpClient } = await import("./acpSetup");
        const link = makeAcpClient(current);
        current.attachAcp(link);
        link.connect();
      }
    })();
  }, [sessionId, channel, make]);

  // The channel follows the person: the next command names the session they are in.
  useEffect(() => {
    if (channel?.active && sessionId !== undefined) channel.sessionChanged();
  }, [channel, sessionId]);

  return { channel, dialogOpen, open, close: () => setDialogOpen(false), acp };
}

function useSyncedSessionId(controller: SessionController): string | undefined {
  const [id, setId] = useState(controller.getState().current?.id);
  useEffect(() => controller.subscribe(() => setId(controller.getState().current?.id)), [controller]);
  return id;
}
