import { AcpClient } from "../agent/acpClient";
import type { AgentChannel } from "../agent/agentChannel";

/**
 * The ACP link's wiring to the page (Invite agent loads this, with the ACP
 * SDK, when the person presses Connect): the same session, agent, mounts
 * and audit list as the invited agent's channel, and the room's rights are
 * that channel's.
 */
export function makeAcpClient(channel: AgentChannel): AcpClient {
  const page = channel.page;
  return new AcpClient({
    session: page.session,
    agent: page.agent,
    mountSnapshot: page.mountSnapshot,
    mountsApplied: page.mountsApplied,
    audit: page.audit,
    rights: () => channel.getState().rights,
    fallback: () => channel,
    storage: page.storage,
  });
}
