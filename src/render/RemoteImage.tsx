/**
 * Remote images (http/https) in mounts and in the reply's Markdown (DESIGN.md
 * §4): an image URL is a beacon — loading it tells its server that, when and
 * (in the URL) whatever the code chose. So nothing is requested until the
 * session's network capability covers the host; until then a placeholder
 * names the host and offers **Load** (the person's click is the consent).
 *
 * Loading goes through the app (`RemoteImagePolicy.load`: no credentials, no
 * referrer, no redirects, a size limit) and shows the bytes as a blob: URL, so the app's CSP
 * (`img-src 'self' data: blob:`) stays closed to remote images. That blob: URL
 * is of the app's origin, so only a raster type sniffed from the bytes
 * (rasterImage.ts) ever gets one: opened in a tab of its own, it is an image,
 * never a document that runs script beside the API key.
 *
 * Without a policy (a renderer used on its own) remote images are not drawn at all.
 */
import { createContext, useContext, useEffect, useState, useSyncExternalStore } from "react";
import { isRasterImageType } from "./rasterTypes";

export interface RemoteImagePolicy {
  /** The session's network capability already covers this URL's host. */
  covers(url: string): boolean;
  /** Re-read `covers` when this fires (a host allowed or revoked). */
  subscribe(listener: () => void): () => void;
  /** Fetch the image for display: a Blob of a raster type sniffed from its bytes (rasterImageBlob); the caller makes a blob: URL. */
  load(url: string, signal: AbortSignal): Promise<Blob>;
}

export const RemoteImagesContext = createContext<RemoteImagePolicy | undefined>(undefined);

/** The URL when it is a remote image a policy may load (absolute http(s), no credentials), else null. */
export function remoteImageUrl(value: unknown): string | null {
  if (typeof value !== "string" || value.length > 8_192) return null;
  try {
    const url = new URL(value);
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password) return null;
    return url.href;
  } catch {
    return null;
  }
}

const noSubscribe = () => () => undefined;

export function RemoteImage({ url, alt, className }: { url: string; alt?: string; className?: string }) {
  const policy = useContext(RemoteImagesContext);
  const snapshot = () => policy?.covers(url) ?? false;
  const covered = useSyncExternalStore(policy?.subscribe ?? noSubscribe, snapshot, snapshot);
  const [requested, setRequested] = useState(false);
  const [state, setState] = useState<
    { kind: "idle" } | { kind: "loading" } | { kind: "shown"; src: string } | { kind: "failed"; message: string }
  >({ kind: "idle" });
  const wanted = covered || requested;
  useEffect(() => {
    if (!policy || !wanted) return;
    const controller = new AbortController();
    let objectUrl: string | undefined;
    setState({ kind: "loading" });
    policy.load(url, controller.signal).then(
      (blob) => {
        if (controller.signal.aborted) return;
        // The policy sniffed the type; anything else would become a document of the app's origin if opened.
        if (!isRasterImageType(blob.type)) {
          setState({ kind: "failed", message: "it is not a PNG, JPEG, GIF, WebP or AVIF image" });
          return;
        }
        objectUrl = URL.createObjectURL(blob);
        setState({ kind: "shown", src: objectUrl });
      },
      (error: unknown) => {
        if (!controller.signal.aborted)
          setState({ kind: "failed", message: error instanceof Error ? error.message : String(error) });
      },
    );
    return () => {
      controller.abort();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [policy, url, wanted]);
  if (!policy) return null;
  if (state.kind === "shown")
    return <img src={state.src} alt={alt ?? ""} className={className} referrerPolicy="no-referrer" />;
  const host = new URL(url).host;
  return (
    <span className="lm-remote-image" role="group" aria-label={`Image from ${host}`} title={url}>
      <span className="lm-remote-image__text">
        {state.kind === "failed"
          ? `Image from ${host} could not be loaded: ${state.message}`
          : `Image from ${host}${alt ? `: ${alt}` : ""}`}
      </span>
      {state.kind === "loading" ? (
        <span className="lm-remote-image__loading">Loading…</span>
      ) : (
        state.kind === "idle" && (
          <button type="button" className="lm-remote-image__load" onClick={() => setRequested(true)}>
            Load
          </button>
        )
      )}
    </span>
  );
}
