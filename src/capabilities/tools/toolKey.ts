/** A tool's key in the rules: its server's address and its MCP name (an address never contains "#"). */
export const toolKey = (address: string, tool: string): string => `${address}#${tool}`;
