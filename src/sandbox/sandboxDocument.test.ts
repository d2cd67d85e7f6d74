import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isSandboxDocument, sandboxDocumentHeaders, sandboxPolicy, serviceWorkerSandboxUrl } from "./sandboxDocument";

const SANDBOX_HTML = readFileSync(new URL("../../public/sandbox.html", import.meta.url), "utf8");

describe("the sandbox document as the service worker serves it", () => {
  it("is sandboxed by its CSP header with sandbox.html's own policy: scripts only, no network", () => {
    const csp = sandboxDocumentHeaders(SANDBOX_HTML)["Content-Security-Policy"];
    const directives = csp.split(";").map((each) => each.trim());
    // Exactly the attribute's flags: no allow-same-origin, popups, top navigation, forms or modals.
    expect(directives[0]).toBe("sandbox allow-scripts");
    expect(directives).toContain("default-src 'none'");
    expect(directives).toContain("connect-src 'none'");
    expect(directives).toContain("worker-src blob:");
    expect(directives.find((each) => each.startsWith("script-src"))).toMatch(
      /^script-src 'sha256-[A-Za-z0-9+/]+=*' 'unsafe-eval'$/,
    );
    expect(csp).not.toMatch(/allow-same-origin|unsafe-inline/);
  });

  it("serves no document when sandbox.html has no policy or a weaker one", () => {
    expect(() => sandboxPolicy("<!doctype html><script>1</script>")).toThrow(/no Content-Security-Policy/);
    const open = SANDBOX_HTML.replace("connect-src 'none'", "connect-src *");
    expect(() => sandboxDocumentHeaders(open)).toThrow(/not the realm's wall/);
    const inline = SANDBOX_HTML.replace(/script-src 'sha256-[^']+'/, "script-src 'unsafe-inline'");
    expect(() => sandboxDocumentHeaders(inline)).toThrow(/not the realm's wall/);
  });

  it("is sandbox.html?sw next to the app, whatever the sub-path, and only sandbox.html in the worker's scope matches", () => {
    expect(serviceWorkerSandboxUrl("https://host.example/some/sub/path/sandbox.html")).toBe(
      "https://host.example/some/sub/path/sandbox.html?sw",
    );
    const scope = "https://host.example/some/sub/path/";
    expect(isSandboxDocument("https://host.example/some/sub/path/sandbox.html?sw", scope)).toBe(true);
    expect(isSandboxDocument("https://host.example/some/sub/path/sandbox.html", scope)).toBe(true);
    expect(isSandboxDocument("https://host.example/some/sub/path/index.html", scope)).toBe(false);
    expect(isSandboxDocument("https://host.example/sandbox.html", scope)).toBe(false);
    expect(isSandboxDocument("https://other.example/some/sub/path/sandbox.html", scope)).toBe(false);
  });
});
