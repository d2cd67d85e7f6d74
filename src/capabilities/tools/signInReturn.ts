/** The page's query is a return from an MCP server's OAuth sign-in (`?code&state`, or `?error&state`). */
export const isSignInReturn = (search: string): boolean =>
  /[?&]state=/.test(search) && /[?&](code|error)=/.test(search);
