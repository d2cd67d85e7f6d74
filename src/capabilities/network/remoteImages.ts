/**
 * Remote images (src/render/RemoteImage.tsx): shown without asking only when
 * the network capability covers their host; a click on Load is the consent
 * for one image. Fetched like the broker does: no credentials, no referrer,
 * a size limit; every load is audited.
 */
import type { RemoteImagePolicy } from "../../render/RemoteImage";
import { rasterImageBlob } from "../../render/rasterImage";
import type { CapabilityDecision } from "../../store/types";
import type { PersonSide } from "../Capability";
import { isRedirect, type NetworkBroker } from "./createNetworkBroker";
import { covers } from "./networkPolicy";

const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

export function createRemoteImagePolicy({
  broker,
  record,
  now,
}: {
  broker: Pick<NetworkBroker, "state" | "subscribe">;
  record: PersonSide["record"];
  now: () => number;
}): RemoteImagePolicy {
  return {
    covers: (url) => covers(broker.state(), url),
    subscribe: (listener) => broker.subscribe(() => listener()),
    load: async (url, signal) => {
      const policy = broker.state();
      const covered = covers(policy, url);
      const decision: CapabilityDecision = covered
        ? policy.mode === "allowed"
          ? "allowed-session"
          : "allowed-host"
        : "allowed-once";
      const base = { at: now(), capability: "network" as const, method: "GET", url, decision, kind: "image" };
      let response: Response;
      try {
        // Never "follow" (the consent covers this URL only): see createNetworkBroker.ts.
        response = await fetch(url, {
          credentials: "omit",
          referrerPolicy: "no-referrer",
          mode: "cors",
          cache: "no-store",
          redirect: "manual",
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw error;
        record({ ...base, result: "cors" });
        throw new Error("the server does not allow browser requests (no CORS headers) or could not be reached", {
          cause: error,
        });
      }
      if (isRedirect(response)) {
        record({ ...base, status: response.status || undefined, result: "redirected" });
        throw new Error(
          "the server redirected to another address (redirects are not followed; use the image's final URL)",
        );
      }
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (bytes.length > MAX_IMAGE_BYTES) {
        record({ ...base, status: response.status, bytes: bytes.length, result: "too-large" });
        throw new Error(`it is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB`);
      }
      if (!response.ok) {
        record({ ...base, status: response.status, bytes: bytes.length, result: "http-error" });
        throw new Error(`the server answered ${response.status}`);
      }
      // The type comes from the bytes, never from the server (src/render/rasterImage.ts).
      const image = rasterImageBlob(bytes);
      record({ ...base, status: response.status, bytes: bytes.length, result: image.ok ? "ok" : "not-an-image" });
      if (!image.ok) throw new Error(image.reason);
      return image.blob;
    },
  };
}
