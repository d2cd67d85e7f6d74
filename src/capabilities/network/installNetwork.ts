/**
 * The network capability on the page (`network.install`): its broker, the
 * open session's rules (mode and allowed hosts in the session's settings,
 * "Always allow this host" as grants in the store) loaded when a session
 * opens and saved on every change, Revoke, remote images, and its section
 * of Session settings (Settings.tsx).
 */
import { createElement } from "react";
import { NET_FETCH } from "../../wire/capabilities";
import { listGrants, removeGrant } from "../../store/capabilities";
import { updateSessionRules } from "../../store/sessions";
import type { CapabilityHost, InstalledCapability, OpenSession } from "../Capability";
import { networkAsk } from "./ask";
import { createNetworkBroker, type NetworkBroker, type NetworkBrokerOptions } from "./createNetworkBroker";
import { networkAudit } from "./audit";
import { DEFAULT_NETWORK_POLICY, type NetworkMode, type NetworkPolicyState } from "./networkPolicy";
import { createRemoteImagePolicy } from "./remoteImages";
import { NetworkSettings } from "./Settings";

/** What Session settings' network section uses. */
export interface NetworkSettingsHandle {
  state(): NetworkPolicyState;
  subscribe(listener: () => void): () => void;
  /** Off / Ask / Allowed: saved with the session. */
  setMode(mode: NetworkMode): void;
  /** Revoke a host: at once in the broker (a call in flight on it is aborted), then in storage. */
  revoke(host: string): Promise<void>;
}

export type InstalledNetwork = InstalledCapability & NetworkSettingsHandle & { readonly broker: NetworkBroker };

export function installNetwork(
  { person }: Pick<CapabilityHost, "person">,
  options: Pick<NetworkBrokerOptions, "newId" | "fetch" | "now"> = {},
): InstalledNetwork {
  let open: OpenSession | undefined;
  /** Which session a given open() belongs to: a late load of a previous session is dropped. */
  let generation = 0;
  const broker = createNetworkBroker({
    ...options,
    ask: person.asker(networkAsk),
    audit: networkAudit(person),
    // Every change (an answer, Off / Ask / Allowed, a revoke) is saved with the open session.
    onChange: (policy) => {
      if (!open) return;
      void updateSessionRules(open.store, open.session.id, {
        network: policy.mode,
        // Also kept as grant records ("Always allow this host"), which the export lists.
        allowedHosts: [...policy.hosts],
      }).catch(() => undefined);
    },
  });
  const handle: NetworkSettingsHandle = {
    state: () => broker.state(),
    subscribe: (listener) => broker.subscribe(() => listener()),
    setMode: (mode) => broker.setMode(mode),
    async revoke(host) {
      broker.revokeHost(host);
      if (!open) return;
      const { store, session } = open;
      const grants = await listGrants(store, session.id).catch(() => []);
      for (const grant of grants)
        if (grant.capability === "network" && grant.host === host && grant.id !== undefined)
          await removeGrant(store, grant.id).catch(() => undefined);
    },
  };
  return {
    ...handle,
    broker,
    services: { [NET_FETCH]: broker.service },
    async open(session) {
      const current = ++generation;
      open = session;
      // The session's own settings apply at once, with none of its saved grants yet (they load below): code that
      // runs meanwhile is asked about what the grants would allow, never let through by the previous session's.
      const settings = session?.session.settings;
      const policyWith = (granted: readonly string[]): NetworkPolicyState => ({
        mode: settings?.network ?? DEFAULT_NETWORK_POLICY.mode,
        hosts: [...new Set([...(settings?.allowedHosts ?? []), ...granted])],
        strict: session?.strict === true,
        grants: [],
      });
      broker.load(policyWith([]));
      if (!session) return;
      const grants = await listGrants(session.store, session.session.id).catch(() => []);
      if (current !== generation) return;
      // What was asked meanwhile stays (keepCalls): it belongs to this session.
      broker.load(policyWith(grants.filter((grant) => grant.capability === "network").map((grant) => grant.host)), {
        keepCalls: true,
      });
    },
    setStrict: (strict) => broker.setStrict(strict),
    Settings: () => createElement(NetworkSettings, { network: handle }),
    remoteImages: createRemoteImagePolicy({
      broker,
      record: (entry) => person.record(entry),
      now: options.now ?? Date.now,
    }),
  };
}
