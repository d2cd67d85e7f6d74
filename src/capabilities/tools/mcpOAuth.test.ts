/**
 * The browser side of MCP OAuth sign-in: what is kept where, and which
 * returns to the page count as a sign-in (only the one this tab started,
 * with its state: a forged or replayed link is ignored).
 */
import { describe, expect, it } from "vitest";
import { createBrowserOAuthProvider, redirectUrlOf, takePendingSignIn } from "./mcpOAuth";

function memoryStorage() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

describe("MCP OAuth in the browser", () => {
  it("keeps client, verifier and tokens per server; the redirect records the pending sign-in with its state", async () => {
    const storage = memoryStorage();
    const visited: string[] = [];
    const provider = createBrowserOAuthProvider({
      serverUrl: "https://a.example/mcp",
      redirectUrl: "https://app.example/",
      storage,
      navigate: (url) => void visited.push(url.href),
    });
    expect(provider.clientMetadata).toMatchObject({
      redirect_uris: ["https://app.example/"],
      token_endpoint_auth_method: "none",
    });
    await provider.saveCodeVerifier("verifier-1");
    await provider.saveTokens({ access_token: "t", token_type: "Bearer" });
    expect(await provider.codeVerifier()).toBe("verifier-1");
    expect(await provider.tokens()).toEqual({ access_token: "t", token_type: "Bearer" });
    await provider.redirectToAuthorization(new URL("https://auth.example/authorize?state=s-1&code_challenge=c"));
    expect(visited).toEqual(["https://auth.example/authorize?state=s-1&code_challenge=c"]);
    const other = createBrowserOAuthProvider({
      serverUrl: "https://b.example/mcp",
      redirectUrl: "https://app.example/",
      storage,
    });
    expect(await other.tokens()).toBeUndefined();
    await provider.invalidateCredentials?.("all");
    expect(await provider.tokens()).toBeUndefined();
  });

  it("a return counts only with the pending sign-in's state, once", () => {
    const storage = memoryStorage();
    const provider = createBrowserOAuthProvider({
      serverUrl: "https://a.example/mcp",
      redirectUrl: "https://app.example/",
      storage,
      navigate: () => undefined,
    });
    void provider.redirectToAuthorization(new URL("https://auth.example/authorize?state=s-1"));
    expect(takePendingSignIn("?code=abc&state=forged", storage)).toBeUndefined();
    expect(takePendingSignIn("?code=abc", storage)).toBeUndefined();
    expect(takePendingSignIn("?code=abc&state=s-1", storage)).toEqual({
      pending: { serverUrl: "https://a.example/mcp", state: "s-1" },
      code: "abc",
    });
    // Spent: the same link again is not a sign-in.
    expect(takePendingSignIn("?code=abc&state=s-1", storage)).toBeUndefined();
  });

  it("a refused sign-in says so; the page's own address is the redirect target", () => {
    const storage = memoryStorage();
    const provider = createBrowserOAuthProvider({
      serverUrl: "https://a.example/mcp",
      redirectUrl: "https://app.example/",
      storage,
      navigate: () => undefined,
    });
    void provider.redirectToAuthorization(new URL("https://auth.example/authorize?state=s-2"));
    expect(takePendingSignIn("?error=access_denied&error_description=no&state=s-2", storage)).toEqual({
      error: "https://a.example/mcp did not sign you in (no)",
    });
    expect(redirectUrlOf({ origin: "https://app.example", pathname: "/livemark/" })).toBe(
      "https://app.example/livemark/",
    );
  });
});
