/**
 * The person's MCP tools in **Session settings** (DESIGN.md §4): the servers
 * (**MCP server URL**, an optional bearer token, **Add server**, Remove, the
 * read-only switch) and the tools granted for the session (**Revoke**).
 * Grants and the switch are the server's address's (origin and path of its
 * URL), never its self-declared name's; Remove takes them away.
 * Loaded with the dialog's first opening, not with the page (Settings.tsx;
 * the ask in the timeline is AskView.tsx).
 */
import { useState, useSyncExternalStore, type FormEvent } from "react";
import type { ToolsSettingsHandle } from "./installTools";
import { parseToolKey } from "./toolPolicy";

/** Both sections, as Settings.tsx loads them. */
export default function ToolSections({ tools }: { tools: ToolsSettingsHandle }) {
  return (
    <>
      <ToolServersSection tools={tools} />
      <GrantedToolsSection tools={tools} />
    </>
  );
}

function ToolServersSection({ tools }: { tools: ToolsSettingsHandle }) {
  const state = useSyncExternalStore(tools.subscribe, tools.view, tools.view);
  const [url, setUrl] = useState("");
  const [token, setToken] = useState("");
  const { servers, connecting, error } = state.servers;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (connecting) return;
    if (await tools.addServer(url, token)) {
      setUrl("");
      setToken("");
    }
  };
  return (
    <section className="lm-field" aria-label="Tools">
      <h3 className="lm-dialog__subtitle">Tools (MCP servers)</h3>
      <p className="lm-dialog__hint">
        The code can call the tools of MCP servers you connect, as <code>tools.name(args)</code>. This page connects to
        them itself; a token stays here and never reaches the code, the model or an export. Each tool asks before it
        runs.
      </p>
      <form className="lm-tools-form" onSubmit={(event) => void submit(event)}>
        <label>
          MCP server URL
          <input
            type="url"
            value={url}
            placeholder="https://example.com/mcp"
            onChange={(event) => setUrl(event.target.value)}
            autoComplete="off"
            spellCheck={false}
          />
        </label>
        <label>
          Bearer token (optional)
          <input type="password" value={token} onChange={(event) => setToken(event.target.value)} autoComplete="off" />
        </label>
        <button type="submit" className="lm-button" disabled={Boolean(connecting)}>
          Add server
        </button>
      </form>
      {connecting && (
        <p className="lm-dialog__hint" aria-live="polite">
          Connecting to {connecting}…
        </p>
      )}
      {error && (
        <p className="lm-tools-error" role="alert">
          {error}
        </p>
      )}
      {servers.length > 0 && (
        <ul className="lm-tool-servers" aria-label="MCP servers">
          {servers.map((server) => {
            const readOnly = server.tools.filter((tool) => tool.readOnly);
            const allowed = state.policy.readOnlyServers.includes(server.address);
            return (
              <li key={server.id} aria-label={`MCP server ${server.name}`}>
                <div className="lm-tool-servers__head">
                  <strong>{server.name}</strong> <code>{server.url}</code>
                  <small>
                    {" "}
                    · {server.tools.length} tool{server.tools.length === 1 ? "" : "s"}
                    {server.hasToken ? " · token" : ""}
                  </small>
                  <button
                    type="button"
                    className="lm-button"
                    aria-label={`Remove ${server.name}`}
                    onClick={() => void tools.removeServer(server.id)}
                  >
                    Remove
                  </button>
                </div>
                <p className="lm-tool-servers__tools">
                  {server.tools.map((tool) => tool.name + (tool.readOnly ? " (read-only)" : "")).join(", ") ||
                    "no tools"}
                </p>
                <label>
                  <input
                    type="checkbox"
                    role="switch"
                    checked={allowed}
                    disabled={readOnly.length === 0}
                    onChange={(event) => tools.setReadOnlyToolsAllowed(server.address, event.target.checked)}
                  />{" "}
                  Allow its read-only tools without asking
                </label>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

/**
 * Each grant is for a tool of the server at one address (origin and path of its URL), shown as
 * `server/tool` while a server at that address is connected, with the address beside it.
 */
function GrantedToolsSection({ tools }: { tools: ToolsSettingsHandle }) {
  const state = useSyncExternalStore(tools.subscribe, tools.view, tools.view);
  if (state.policy.allowed.length === 0) return null;
  const servers = state.servers.servers;
  return (
    <section className="lm-field" aria-label="Granted tools">
      <h3 className="lm-dialog__subtitle">Granted tools</h3>
      <ul className="lm-hosts">
        {state.policy.allowed.map((key) => {
          const parsed = parseToolKey(key);
          const server = parsed && servers.find((item) => item.address === parsed.address);
          const label = parsed ? (server ? `${server.name}/${parsed.tool}` : parsed.tool) : key;
          return (
            <li key={key}>
              <code>{label}</code>
              {parsed && <small className="lm-granted-tool__server"> at {parsed.address}</small>}
              <button
                type="button"
                className="lm-button"
                aria-label={`Revoke ${label}`}
                onClick={() => void tools.revokeTool(key)}
              >
                Revoke
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
