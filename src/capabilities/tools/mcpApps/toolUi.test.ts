import { describe, expect, it } from "vitest";
import {
  boundedHeight,
  buildViewCsp,
  cspSource,
  DEFAULT_VIEW_HEIGHT,
  isAppOnly,
  MAX_VIEW_HEIGHT,
  MIN_VIEW_HEIGHT,
  toolUiOf,
  viewCspOf,
  withViewCsp,
} from "./toolUi";

describe("toolUiOf", () => {
  it("reads _meta.ui.resourceUri and the older _meta['ui/resourceUri']", () => {
    expect(toolUiOf({ ui: { resourceUri: "ui://films/card.html" } })).toEqual({
      resourceUri: "ui://films/card.html",
      visibility: ["model", "app"],
    });
    expect(toolUiOf({ "ui/resourceUri": "ui://films/old.html" })?.resourceUri).toBe("ui://films/old.html");
    // The nested form wins over the flat one.
    expect(toolUiOf({ ui: { resourceUri: "ui://a" }, "ui/resourceUri": "ui://b" })?.resourceUri).toBe("ui://a");
  });

  it("ignores tools without a ui:// resource", () => {
    expect(toolUiOf(undefined)).toBeUndefined();
    expect(toolUiOf({})).toBeUndefined();
    expect(toolUiOf({ ui: { resourceUri: "https://example.com/app.html" } })).toBeUndefined();
    expect(toolUiOf({ ui: { resourceUri: 42 } })).toBeUndefined();
    expect(toolUiOf("ui://x")).toBeUndefined();
  });

  it("reads visibility, dropping unknown entries", () => {
    expect(toolUiOf({ ui: { resourceUri: "ui://a", visibility: ["app"] } })?.visibility).toEqual(["app"]);
    expect(toolUiOf({ ui: { resourceUri: "ui://a", visibility: ["model", "bogus"] } })?.visibility).toEqual(["model"]);
    expect(toolUiOf({ ui: { resourceUri: "ui://a", visibility: ["bogus"] } })?.visibility).toEqual(["model", "app"]);
  });
});

describe("isAppOnly", () => {
  it("hides only tools whose visibility leaves the model out", () => {
    expect(isAppOnly(toolUiOf({ ui: { resourceUri: "ui://a", visibility: ["app"] } }))).toBe(true);
    expect(isAppOnly(toolUiOf({ ui: { resourceUri: "ui://a", visibility: ["app", "model"] } }))).toBe(false);
    expect(isAppOnly(toolUiOf({ ui: { resourceUri: "ui://a" } }))).toBe(false);
    expect(isAppOnly(undefined)).toBe(false);
  });
});

describe("buildViewCsp", () => {
  const directive = (policy: string, name: string) =>
    policy
      .split("; ")
      .find((item) => item.startsWith(`${name} `))
      ?.slice(name.length + 1);

  it("allows nothing external by default", () => {
    const policy = buildViewCsp(undefined);
    expect(directive(policy, "default-src")).toBe("'none'");
    expect(directive(policy, "connect-src")).toBe("'none'");
    expect(directive(policy, "frame-src")).toBe("'none'");
    expect(directive(policy, "script-src")).toBe("'unsafe-inline'");
    expect(directive(policy, "img-src")).toBe("data: blob:");
    expect(policy).not.toMatch(/https?:/);
    expect(policy).not.toContain("unsafe-eval");
  });

  it("adds the declared origins where the extension says", () => {
    const policy = buildViewCsp(
      viewCspOf({
        ui: {
          csp: {
            connectDomains: ["https://api.example.com"],
            resourceDomains: ["https://*.cdn.example.com"],
            frameDomains: ["https://www.youtube.com"],
          },
        },
      }),
    );
    expect(directive(policy, "connect-src")).toBe("https://api.example.com");
    expect(directive(policy, "script-src")).toBe("'unsafe-inline' https://*.cdn.example.com");
    expect(directive(policy, "img-src")).toBe("data: blob: https://*.cdn.example.com");
    expect(directive(policy, "frame-src")).toBe("https://www.youtube.com");
  });

  it("refuses anything that is not an origin (keywords, paths, injected directives)", () => {
    for (const bad of [
      "*",
      "'unsafe-eval'",
      "https://a.com; script-src *",
      "https://a.com/path",
      "javascript:1",
      "data:",
    ])
      expect(cspSource(bad)).toBeUndefined();
    const policy = buildViewCsp({ connectDomains: ["*", "https://a.com; default-src *", "'unsafe-eval'"] });
    expect(directive(policy, "connect-src")).toBe("'none'");
    expect(policy).not.toContain("unsafe-eval");
  });
});

describe("withViewCsp", () => {
  it("puts the policy before anything of the resource, after its doctype", () => {
    expect(withViewCsp("<!DOCTYPE html><script>x</script>", "default-src 'none'")).toBe(
      `<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><script>x</script>`,
    );
    expect(withViewCsp("<p>hi</p>", "a")).toMatch(/^<meta http-equiv="Content-Security-Policy" content="a"><p>/);
  });
});

describe("boundedHeight", () => {
  it("keeps the view's height within the bounds", () => {
    expect(boundedHeight(10)).toBe(MIN_VIEW_HEIGHT);
    expect(boundedHeight(450.2)).toBe(451);
    expect(boundedHeight(1e9)).toBe(MAX_VIEW_HEIGHT);
    expect(boundedHeight(Number.NaN)).toBe(DEFAULT_VIEW_HEIGHT);
    expect(boundedHeight("300")).toBe(DEFAULT_VIEW_HEIGHT);
  });
});
