/**
 * Where a tab remembers its MCP servers across reloads (createMcpServers.ts),
 * kept apart so the page can tell whether there is anything to reconnect
 * without loading the servers' code.
 */
export const REMEMBERED_SERVERS_KEY = "livemark.mcp.servers";

export function hasRememberedServers(
  storage: Pick<Storage, "getItem"> | undefined = typeof sessionStorage === "undefined" ? undefined : sessionStorage,
): boolean {
  try {
    const text = storage?.getItem(REMEMBERED_SERVERS_KEY);
    return Boolean(text && text !== "[]");
  } catch {
    return false;
  }
}
