/**
 * One MCP App view, live: the sandbox proxy (public/mcp-app.html) in a frame
 * with `sandbox="allow-scripts"` (an opaque origin, never the app's), and
 * the extension's own host side (`AppBridge` over `PostMessageTransport`,
 * talking only to that frame's window) speaking for the page:
 *
 * - the view's HTML is its server's `ui://` resource, read once per server and
 *   resource in the page (`McpAppsHost.readView`, started when the call went
 *   ahead; Reopen reads it again) and handed to the proxy with the view's
 *   Content-Security-Policy first (toolUi.ts);
 * - `ui/initialize` answers the host context (theme following the app,
 *   display mode inline, locale, the container's size); once the view says
 *   `initialized`, it gets the call's input and its result (or cancellation);
 * - `size-changed` resizes the panel, within bounds; `tools/call` reaches only
 *   its own server, through the code's consent (asks, grants, strict mode,
 *   audit); `resources/read` only its own server; `ui/open-link` asks first;
 *   `ui/message` becomes a draft in the message box, never sent;
 *   `ui/update-model-context` waits for the next model turn, as untrusted
 *   content; `ui/resource-teardown` when the panel goes.
 *
 * Loaded with the first panel (McpAppSlot.tsx): none of it is in the
 * initial JavaScript.
 */
import { AppBridge, PostMessageTransport, type McpUiHostContext } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { useEffect, useRef, useState, type CSSProperties } from "react";
import type { McpAppPanel } from "./createMcpAppPanels";
import type { McpAppsHost } from "./McpAppSlot";
import { buildViewCsp, MAX_VIEW_HEIGHT, MCP_APP_MIME, viewCspOf, withViewCsp } from "./toolUi";

/** The sandbox proxy, beside index.html. */
export const PROXY_DOCUMENT = "mcp-app.html";
const HOST_INFO = { name: "Livemark", version: "1.0.0" };

const FRAME_STYLE: CSSProperties = Object.freeze({
  display: "block",
  width: "100%",
  border: "1px solid var(--lm-border, #d1d5db)",
  borderRadius: 6,
  background: "transparent",
});

/**
 * Puts text in the message box (src/ui/Composer.tsx, `#lm-message`) as a draft, after what is there, and sends
 * nothing. Through the box's own input event, as typing would: the composer (a controlled textarea) takes it
 * and keeps it as the session's draft. Here rather than a listener in the composer: the composer is in the
 * initial JavaScript, at its budget. False when there is no box.
 */
export function offerDraft(text: string): boolean {
  const box = document.getElementById("lm-message");
  if (!(box instanceof HTMLTextAreaElement)) return false;
  const value = box.value.trim() === "" ? text : `${box.value}\n\n${text}`;
  Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value")?.set?.call(box, value);
  box.dispatchEvent(new Event("input", { bubbles: true }));
  return true;
}

const theme = (): "light" | "dark" => (document.documentElement.classList.contains("dark") ? "dark" : "light");

const textOf = (content: readonly ContentBlock[] | undefined): string =>
  (content ?? [])
    .flatMap((block) => (block.type === "text" && typeof block.text === "string" ? [block.text] : []))
    .join("\n");

/** What the view is told of the page (its container, its theme, …). */
function hostContext(panel: McpAppPanel, width: number): McpUiHostContext {
  return {
    theme: theme(),
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    locale: navigator.language,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    platform: "web",
    containerDimensions: { width, maxHeight: MAX_VIEW_HEIGHT },
    toolInfo: { tool: { name: panel.tool, inputSchema: { type: "object" } } },
  };
}

type LinkAsk = { url: string; answer(open: boolean): void };

export function McpAppView({ panel, host }: { panel: McpAppPanel; host: McpAppsHost }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [problem, setProblem] = useState<string | undefined>();
  const [link, setLink] = useState<LinkAsk | undefined>();
  // The panel's record changes (its result arrives, its height): the bridge reads the latest.
  const latest = useRef(panel);
  latest.current = panel;

  useEffect(() => {
    const element = frame.current;
    const target = element?.contentWindow;
    if (!element || !target) return;
    const { id, address, resourceUri } = panel;
    const ended = new AbortController();
    let initialized = false;
    let sentResult = false;
    const bridge = new AppBridge(
      null,
      HOST_INFO,
      {
        openLinks: {},
        serverTools: {},
        serverResources: {},
        logging: {},
        message: { text: {} },
        updateModelContext: { text: {}, structuredContent: {} },
      },
      { hostContext: hostContext(panel, element.clientWidth) },
    );
    const server = host.appServer(address);
    // The view's HTML, read once per server and resource in this page (a Reopen reads it again): started when the
    // call went ahead, it is usually there before the proxy is; a failure is said once the proxy is there.
    const view = host.readView(panel, panel.generation > 0);
    view.catch(() => undefined);
    const sendOutcome = () => {
      const current = latest.current;
      if (!initialized || sentResult) return;
      if (current.result) {
        sentResult = true;
        void bridge.sendToolResult(current.result as CallToolResult).catch(() => undefined);
      } else if (current.cancelled !== undefined) {
        sentResult = true;
        void bridge.sendToolCancelled({ reason: current.cancelled }).catch(() => undefined);
      }
    };
    const unsubscribe = host.panels.subscribe(sendOutcome);

    bridge.oninitialized = () => {
      initialized = true;
      void bridge.sendToolInput({ arguments: latest.current.input }).catch(() => undefined);
      sendOutcome();
    };
    bridge.onsizechange = ({ height }) => {
      if (height !== undefined) host.panels.resize(id, height);
    };
    // Only its own server's tools, through the person's consent like the code's calls.
    bridge.oncalltool = async (params, extra) => {
      const connected = await server;
      const tool = connected?.tool(params.name);
      if (!tool) throw new Error(`the server ${panel.server} has no tool named "${String(params.name).slice(0, 100)}"`);
      const signal = AbortSignal.any([extra.signal, ended.signal]);
      return (await host.callTool(tool, params.arguments ?? {}, signal)) as CallToolResult;
    };
    bridge.onreadresource = async ({ uri }, extra) => {
      const connected = await server;
      if (!connected) throw new Error(`the server ${panel.server} is not connected`);
      return (await connected.readResource(uri, AbortSignal.any([extra.signal, ended.signal]))) as never;
    };
    bridge.onopenlink = ({ url }) =>
      new Promise((resolve) => {
        let parsed: URL | undefined;
        try {
          parsed = new URL(url);
        } catch {
          parsed = undefined;
        }
        if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) {
          resolve({ isError: true });
          return;
        }
        const href = parsed.href;
        setLink({
          url: href,
          answer(open) {
            setLink(undefined);
            if (open) window.open(href, "_blank", "noopener,noreferrer");
            resolve(open ? {} : { isError: true });
          },
        });
      });
    bridge.onmessage = async ({ content }) => {
      const text = textOf(content);
      if (text === "") return { isError: true };
      return offerDraft(text) ? {} : { isError: true };
    };
    bridge.onupdatemodelcontext = async ({ content, structuredContent }) => {
      const text = [textOf(content), structuredContent ? JSON.stringify(structuredContent) : ""]
        .filter(Boolean)
        .join("\n");
      host.panels.setModelContext(id, text);
      return {};
    };
    bridge.onloggingmessage = () => undefined;
    bridge.onsandboxready = () => {
      void (async () => {
        try {
          // The read started with the call (or above, for a Reopen): not read again here.
          const content = await view;
          if (ended.signal.aborted) return;
          if (typeof content.text !== "string")
            throw new Error(`${resourceUri} has no HTML for a view (expected ${MCP_APP_MIME}).`);
          if (content.mimeType && content.mimeType.replace(/\s/g, "").toLowerCase() !== MCP_APP_MIME)
            throw new Error(`${resourceUri} is ${content.mimeType}, not an MCP App view (${MCP_APP_MIME}).`);
          const declared = viewCspOf(content._meta);
          await bridge.sendSandboxResourceReady({
            html: withViewCsp(content.text, buildViewCsp(declared)),
            sandbox: "allow-scripts",
            ...(declared ? { csp: declared as never } : {}),
          });
        } catch (error) {
          if (!ended.signal.aborted) setProblem(String((error as Error)?.message ?? error));
        }
      })();
    };

    // The theme follows the app's (Theme, or the system's).
    const themes = new MutationObserver(() => {
      const next = theme();
      if (bridge.getAppCapabilities() !== undefined) void bridge.sendHostContextChange({ theme: next });
    });
    themes.observe(document.documentElement, { attributes: true, attributeFilter: ["class"] });

    // Only this frame's window: messages from anywhere else (the realm, another view, the page) are not the view's.
    void bridge.connect(new PostMessageTransport(target, target)).then(() => {
      element.src = new URL(PROXY_DOCUMENT, document.baseURI).href;
    });
    return () => {
      ended.abort();
      themes.disconnect();
      unsubscribe();
      // Best effort: the frame goes with the panel, the view may not hear it.
      void bridge.teardownResource({}, { timeout: 500 }).catch(() => undefined);
      void bridge.close().catch(() => undefined);
    };
    // One view per panel and Reopen (the panel's generation is this component's key).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return (
    <>
      <iframe
        ref={frame}
        title={`MCP App ${panel.tool} from ${panel.server}`}
        sandbox="allow-scripts"
        referrerPolicy="no-referrer"
        style={{ ...FRAME_STYLE, height: panel.height }}
      />
      {link && (
        <div className="lm-ask" role="group" aria-label="Open link">
          <p className="lm-ask__what">
            The app from {panel.server} wants to open <code>{link.url}</code> in a new tab.
          </p>
          <button type="button" className="lm-button" onClick={() => link.answer(true)}>
            Open link
          </button>{" "}
          <button type="button" className="lm-button lm-button--quiet" onClick={() => link.answer(false)}>
            Don't open
          </button>
        </div>
      )}
      {problem && (
        <p className="lm-notice lm-notice--warn" role="alert">
          {problem}
        </p>
      )}
    </>
  );
}
