import { describe, expect, it } from "vitest";
import { CSP_HEADER_WARNING, warnWithoutCspHeader } from "./warnWithoutCspHeader";

function check(answer: () => Promise<Response>, url = "https://app.example/livemark/#share=abc") {
  const warnings: string[] = [];
  const requests: { url: string; init?: RequestInit }[] = [];
  const fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    requests.push({ url: String(input), init });
    return answer();
  }) as typeof globalThis.fetch;
  return {
    run: () => warnWithoutCspHeader({ url, fetch, warn: (message) => void warnings.push(message) }),
    warnings,
    requests,
  };
}

describe("warnWithoutCspHeader", () => {
  it("warns once when the page's own response has no Content-Security-Policy header, asking with HEAD and no fragment", async () => {
    const probe = check(async () => new Response(null, { status: 200, headers: { "content-type": "text/html" } }));
    await expect(probe.run()).resolves.toBe(true);
    expect(probe.warnings).toEqual([CSP_HEADER_WARNING]);
    expect(probe.warnings[0]).toMatch(/Content-Security-Policy HTTP header.*"Hosting"/);
    expect(probe.requests).toEqual([
      { url: "https://app.example/livemark/", init: expect.objectContaining({ method: "HEAD", cache: "no-store" }) },
    ]);
  });

  it("stays silent when the header is there", async () => {
    const probe = check(
      async () => new Response(null, { status: 200, headers: { "Content-Security-Policy": "default-src 'self'" } }),
    );
    await expect(probe.run()).resolves.toBe(false);
    expect(probe.warnings).toEqual([]);
  });

  it("stays silent when it cannot tell: offline, a host without HEAD, a page not served over HTTP", async () => {
    const offline = check(() => Promise.reject(new TypeError("Failed to fetch")));
    await expect(offline.run()).resolves.toBe(false);
    const noHead = check(async () => new Response(null, { status: 405 }));
    await expect(noHead.run()).resolves.toBe(false);
    const file = check(async () => new Response(null, { status: 200 }), "file:///home/me/livemark/index.html");
    await expect(file.run()).resolves.toBe(false);
    expect(file.requests).toEqual([]);
    expect([...offline.warnings, ...noHead.warnings, ...file.warnings]).toEqual([]);
  });
});
