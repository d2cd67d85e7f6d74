import { describe, expect, it } from "vitest";
import { COMPONENT_SPECS, specFor } from "./componentSpecs";
import {
  KEYFRAMES_PREFIX,
  MAX_Z_INDEX,
  MIN_Z_INDEX,
  isSafeClassToken,
  sanitizeClassName,
  sanitizeCssDeclaration,
  sanitizeGeneratedCss,
  sanitizeStyle,
  selectorInScope,
} from "./sanitizeCss";
import { sanitizeProps } from "./sanitizeProps";
import { SHARE_FRAGMENT, isShareLink, sanitizeUrl } from "./sanitizeUrl";
import { SHARE_PREFIX } from "../store/share";
import { createUtilityCssGenerator } from "./utilityCss";

const H = { $handler: true };
const options = { idPrefix: "lm-m1-" };
const clean = (type: string, props: Record<string, unknown>) => sanitizeProps(specFor(type)!, props, options);

describe("sanitizeUrl", () => {
  it("allows http(s) and mailto links, normalised", () => {
    expect(sanitizeUrl("https://example.com/a?b=1", "link")).toBe("https://example.com/a?b=1");
    expect(sanitizeUrl("HTTP://Example.com", "link")).toBe("http://example.com/");
    expect(sanitizeUrl("mailto:a@b.c", "link")).toBe("mailto:a@b.c");
  });

  it("refuses script schemes however they are spelled", () => {
    for (const url of [
      "javascript:alert(1)",
      " javascript:alert(1)",
      "java\tscript:alert(1)",
      "JaVaScRiPt:alert(1)",
      "\u0000javascript:alert(1)",
      "vbscript:x",
      "data:text/html,<script>alert(1)</script>",
      "file:///etc/passwd",
    ]) {
      expect(sanitizeUrl(url, "link"), url).toBeNull();
    }
  });

  it("refuses links that would open a shared session (#share=…), on any origin, however spelled", () => {
    for (const url of [
      "https://livemark.example/#share=abc",
      "http://127.0.0.1:4173/app/#share=abc",
      "https://livemark.example/#SHARE=abc",
      "https://livemark.example/#top#share=abc",
      "https://livemark.example/#sh\tare=abc",
      "https://livemark.example/?q#share=",
      "#share=abc",
    ]) {
      expect(sanitizeUrl(url, "link"), url).toBeNull();
      expect(isShareLink(url), url).toBe(true);
    }
    expect(clean("a", { href: "https://livemark.example/#share=abc" }).props.href).toBeUndefined();
    expect(isShareLink("#share=abc")).toBe(true);
    // An app link runs its code as soon as it opens: the model cannot write one either.
    for (const url of ["https://livemark.example/#app=abc", "#APP=abc", "/x/#app/s1/r1", "https://a.example/#app"])
      expect(isShareLink(url), url).toBe(true);
    expect(clean("a", { href: "https://livemark.example/#app=abc" }).props.href).toBeUndefined();
    expect(isShareLink("https://example.com/#apple")).toBe(false);
    expect(sanitizeUrl("https://example.com/#share-this", "link")).toBe("https://example.com/#share-this");
    expect(sanitizeUrl("https://example.com/share=abc", "link")).toBe("https://example.com/share=abc");
    // The fragment the app opens sessions from.
    expect(SHARE_FRAGMENT).toBe(SHARE_PREFIX);
  });

  it("refuses relative URLs (they would resolve against the app) and credentials", () => {
    for (const url of ["/settings", "#top", "x.png", "//evil.example/x", "https://user:pw@example.com/"]) {
      expect(sanitizeUrl(url, "link"), url).toBeNull();
    }
  });

  it("allows only data: and blob: resources", () => {
    expect(sanitizeUrl("data:image/png;base64,AAAA", "resource")).toBe("data:image/png;base64,AAAA");
    expect(sanitizeUrl("blob:http://127.0.0.1:5173/0b3d5f9e-2c1a-4a7e-9d8b-1f2e3d4c5b6a", "resource")).not.toBeNull();
    expect(sanitizeUrl("https://example.com/x.png", "resource")).toBeNull();
    expect(sanitizeUrl("blob:https://x/../../", "resource")).toBeNull();
  });

  it("refuses non-strings and oversize URLs", () => {
    expect(sanitizeUrl(42, "link")).toBeNull();
    expect(sanitizeUrl("data:," + "a".repeat(600 * 1024), "resource")).toBeNull();
  });
});

describe("CSS declarations and style props", () => {
  it("turns position: fixed into absolute", () => {
    expect(sanitizeCssDeclaration("position", "fixed")).toBe("absolute");
    expect(sanitizeCssDeclaration("position", " FIXED ")).toBe("absolute");
    expect(sanitizeCssDeclaration("position", "sticky")).toBe("sticky");
  });

  it("clamps z-index", () => {
    expect(sanitizeCssDeclaration("z-index", 999999)).toBe(MAX_Z_INDEX);
    expect(sanitizeCssDeclaration("z-index", "-99999")).toBe(MIN_Z_INDEX);
    expect(sanitizeCssDeclaration("z-index", "auto")).toBe("auto");
    expect(sanitizeCssDeclaration("z-index", "calc(1e9)")).toBeNull();
  });

  it("allows url() only with data:/blob:", () => {
    expect(sanitizeCssDeclaration("background", "url(data:image/png;base64,AA) no-repeat")).not.toBeNull();
    expect(sanitizeCssDeclaration("background", "url('data:image/png;base64,AA')")).not.toBeNull();
    expect(sanitizeCssDeclaration("background", "url(https://evil.example/x.png)")).toBeNull();
    expect(sanitizeCssDeclaration("background", "url( 'https://evil.example/x.png' )")).toBeNull();
    expect(sanitizeCssDeclaration("background", "URL(//evil.example/x)")).toBeNull();
    expect(sanitizeCssDeclaration("background", "url(data:,x), url(https://evil.example/)")).toBeNull();
    expect(sanitizeCssDeclaration("cursor", "url(https://evil.example/c.cur), auto")).toBeNull();
  });

  it("refuses fetching or running functions, escapes and injection characters", () => {
    for (const value of [
      "image-set('https://e.example/x.png' 1x)",
      "-webkit-image-set(url(x) 1x)",
      "expression(alert(1))",
      "\\75 rl(https://evil.example/)",
      "red; position: fixed",
      "red !important",
      "attr(data-x url)",
      "src('https://e.example/')",
      "element(#app)",
      "cross-fade(url(a), url(b))",
      "paint(worklet)",
      "red /* x */",
    ]) {
      expect(sanitizeCssDeclaration("background", value), value).toBeNull();
    }
    expect(sanitizeCssDeclaration("behavior", "url(x.htc)")).toBeNull();
    expect(sanitizeCssDeclaration("-moz-binding", "none")).toBeNull();
  });

  it("is not fooled by url( inside a CSS string (string smuggling)", () => {
    const host = "http://127.0.0.1:9/x";
    for (const [property, value] of [
      ["list-style", `'url("data:,' image-set("${host}" 1x)`],
      ["content", `'url("data:,' image-set("${host}" 1x)`],
      ["background", `"url(" image-set("${host}" 1x) ")"`],
      ["background-image", `url("data:,") , -webkit-image-set("${host}" 1x)`],
      ["list-style-image", `'a)' url(${host})`],
      ["cursor", `"x" url(${host}), auto`],
    ]) {
      expect(sanitizeCssDeclaration(property, value), `${property}: ${value}`).toBeNull();
    }
    // Strings themselves are inert text, whatever they hold.
    expect(sanitizeCssDeclaration("content", `"url(http://x) image-set(y) ; } @import"`)).toBe(
      `"url(http://x) image-set(y) ; } @import"`,
    );
    expect(
      sanitizeCssDeclaration(
        "background",
        `url("data:image/png;base64,AA") center / cover, linear-gradient(red, rgb(0 0 0 / 50%))`,
      ),
    ).not.toBeNull();
  });

  it("accepts only known property families", () => {
    expect(sanitizeCssDeclaration("grid-template-columns", "repeat(3, minmax(0, 1fr))")).toBe(
      "repeat(3, minmax(0, 1fr))",
    );
    expect(sanitizeCssDeclaration("-webkit-line-clamp", "2")).toBe("2");
    expect(sanitizeCssDeclaration("--brand", "#0af")).toBe("#0af");
    expect(sanitizeCssDeclaration("src", "local(x)")).toBeNull();
    expect(sanitizeCssDeclaration("frobnicate", "1")).toBeNull();
  });

  it("sanitizes a style object key by key and lists what it dropped", () => {
    const result = sanitizeStyle({
      position: "fixed",
      inset: 0,
      zIndex: 2147483647,
      color: "red",
      background: "url(https://evil.example/t.gif)",
      "--brand": "#f00",
      MozBinding: "url(x)",
      "not a prop": "x",
      width: Number.NaN,
    });
    expect(result.style).toEqual({
      position: "absolute",
      inset: 0,
      zIndex: MAX_Z_INDEX,
      color: "red",
      "--brand": "#f00",
    });
    expect(result.dropped.sort()).toEqual(["MozBinding", "background", "not a prop", "width"].sort());
    expect(sanitizeStyle("color: red").style).toBeUndefined();
  });
});

describe("class tokens", () => {
  it("keeps Tailwind tokens, including arbitrary values", () => {
    for (const token of [
      "p-4",
      "hover:bg-red-500",
      "md:flex",
      "w-[calc(100%-2rem)]",
      "bg-blue-500/50",
      "grid-cols-[1fr_2fr]",
      "!p-2",
      "-mt-2",
      "before:content-['x']",
    ]) {
      expect(isSafeClassToken(token), token).toBe(true);
    }
  });

  it("drops tokens with url(), arbitrary variants and injection characters", () => {
    for (const token of [
      "bg-[url(https://evil.example/x)]",
      "[&_body]:hidden",
      "[&>*]:p-4",
      "[body_&]:fixed",
      "a{b}",
      "x;y",
      "a\\b",
      'a"b',
      "a<b",
      "x".repeat(200),
    ]) {
      expect(isSafeClassToken(token), token).toBe(false);
    }
  });

  it("drops the app's own class namespace (lm-…): a mount cannot wear the app's ask or button styles", () => {
    for (const token of ["lm-ask", "lm-button", "lm-button--primary", "LM-ASK", "Lm-banner--warn", "lm-mount", "lm-"]) {
      expect(isSafeClassToken(token), token).toBe(false);
    }
    expect(sanitizeClassName("lm-ask p-4 LM-button lm-button--primary lmk-button film-x")).toEqual({
      className: "p-4 lmk-button film-x",
      tokens: ["p-4", "lmk-button", "film-x"],
    });
    const result = clean("div", { className: "lm-ask lm-button lm-button--primary" });
    expect(result.props.className).toBeUndefined();
    expect(result.classTokens).toEqual([]);
    expect(clean("Button", { class: "lm-button--stop mt-2" }).props.className).toBe("mt-2");
  });

  it("keeps only safe tokens in the class attribute, deduplicated", () => {
    expect(sanitizeClassName("p-4  p-4 bg-[url(x)] fixed")).toEqual({
      className: "p-4 fixed",
      tokens: ["p-4", "fixed"],
    });
    expect(sanitizeClassName(5).className).toBeUndefined();
  });
});

describe("sanitizeGeneratedCss", () => {
  it("keeps rules scoped under the panel and drops everything else", () => {
    const css = [
      ".lm-mount .p-4{padding:1rem;}",
      "body{background:red;}",
      ".lm-mount ~ .app{display:none;}",
      ".lm-mount + header{display:none;}",
      ".lm-mount .a, .app-header{color:red;}",
      ":root{--x:1;}",
      "@import url(https://evil.example/x.css);",
      "@font-face{font-family:x;src:url(https://evil.example/f.woff);}",
      "@property --x{syntax:'<length>';inherits:false;initial-value:0px;}",
    ].join("\n");
    expect(sanitizeGeneratedCss(css)).toBe(".lm-mount .p-4{padding:1rem;}\n.lm-mount .a{color:red;}");
  });

  it("rewrites declarations inside rules and media queries", () => {
    const css =
      "@media (min-width: 768px){\n.lm-mount .md\\:fixed{position:fixed;z-index:9999;background:url(https://evil.example/);}\n}";
    expect(sanitizeGeneratedCss(css)).toBe(
      "@media (min-width: 768px){.lm-mount .md\\:fixed{position:absolute;z-index:100;}}",
    );
  });

  it("renames keyframes and the animations that use them", () => {
    const css =
      "@keyframes spin{from{transform:rotate(0deg)}to{transform:rotate(360deg)}}\n.lm-mount .animate-spin{animation:spin 1s linear infinite;}";
    const out = sanitizeGeneratedCss(css);
    expect(out).toContain(`@keyframes ${KEYFRAMES_PREFIX}spin{`);
    expect(out).toContain(`animation:${KEYFRAMES_PREFIX}spin 1s linear infinite;`);
    expect(out).not.toMatch(/@keyframes spin\b/);
  });

  it("returns nothing for unbalanced input", () => {
    expect(sanitizeGeneratedCss(".lm-mount .a{color:red;")).toBe("");
    expect(sanitizeGeneratedCss("}body{color:red}")).toBe("");
  });

  it("judges selectors by their subject", () => {
    expect(selectorInScope(".lm-mount .x")).toBe(true);
    expect(selectorInScope('[dir="rtl"] .lm-mount .x')).toBe(true);
    expect(selectorInScope(".lm-mount .peer:checked~.y")).toBe(true);
    expect(selectorInScope(".lm-mount")).toBe(false);
    expect(selectorInScope(".lm-mount ~ .x")).toBe(false);
    expect(selectorInScope("html .x")).toBe(false);
  });
});

describe("utility CSS generation (UnoCSS preset-wind3)", () => {
  it("generates scoped, sanitized CSS for Tailwind tokens", async () => {
    const generator = await createUtilityCssGenerator();
    const { css } = await generator.generate(
      new Set([
        "fixed",
        "inset-0",
        "z-50",
        "p-4",
        "hover:bg-red-500",
        "shadow-lg",
        "animate-spin",
        "z-[99999]",
        "md:flex",
        "dark:bg-black",
      ]),
    );
    expect(css).toContain(".lm-mount .fixed{position:absolute;}");
    expect(css).toContain(".lm-mount .p-4{padding:1rem;}");
    expect(css).toContain(".lm-mount .z-\\[99999\\]{z-index:100;}");
    // dark: follows the app's theme choice (the root's `dark` class, src/ui/theme.ts), kept inside panels.
    expect(css).toMatch(/\.dark \.lm-mount \.dark\\:bg-black\{[^}]*background-color/);
    expect(css).toContain(`@keyframes ${KEYFRAMES_PREFIX}spin`);
    // Preflight variables only inside panels.
    expect(css).toContain(".lm-mount *,.lm-mount ::before,.lm-mount ::after{");
    expect(css).not.toMatch(/(^|\})\s*\*,::before/);
    for (const statement of css.split("\n")) {
      if (statement.startsWith("@")) continue;
      for (const selector of statement.slice(0, statement.indexOf("{")).split(","))
        expect(selectorInScope(selector), selector).toBe(true);
    }
  });
});

describe("sanitizeProps", () => {
  it("drops raw HTML and says so", () => {
    const result = clean("div", {
      dangerouslySetInnerHTML: { __html: "<img src=x onerror=alert(1)>" },
      innerHTML: "x",
    });
    expect(result.props).toEqual({});
    expect(result.dropped).toEqual([
      { prop: "dangerouslySetInnerHTML", reason: "raw-html" },
      { prop: "innerHTML", reason: "raw-html" },
    ]);
  });

  it("keeps only handler markers the spec lists", () => {
    const result = clean("button", { onClick: H, onclick: "alert(1)", onMouseOver: H, onFocus: "x", onPointerDown: H });
    expect(result.handlers).toEqual({ onClick: "plain" });
    expect(result.props).toEqual({});
    expect(result.dropped.map((entry) => entry.reason).sort()).toEqual([
      "string-handler",
      "string-handler",
      "unsupported-handler",
      "unsupported-handler",
    ]);
  });

  it("lets a form submit and inputs change", () => {
    expect(clean("form", { onSubmit: H }).handlers).toEqual({ onSubmit: "submit" });
    expect(clean("input", { onChange: H, onKeyDown: H }).handlers).toEqual({ onChange: "change", onKeyDown: "key" });
    expect(clean("Select", { onValueChange: H }).handlers).toEqual({ onValueChange: "value" });
    expect(clean("Checkbox", { onCheckedChange: H }).handlers).toEqual({ onCheckedChange: "checked" });
  });

  it("clamps numbers that size or multiply work to sane ranges, and leaves data alone", () => {
    expect(clean("YAxis", { tickCount: 50_000_000, width: 10_000_000 }).props).toEqual({ tickCount: 30, width: 2000 });
    expect(clean("LineChart", { width: 10_000_000, height: -5 }).props).toEqual({ width: 2000, height: 0 });
    expect(clean("Line", { strokeWidth: 1e9 }).props).toEqual({ strokeWidth: 100 });
    expect(clean("textarea", { rows: 1e7 }).props).toEqual({ rows: 1000 });
    expect(clean("Slider", { min: -1e9, max: 1e9, step: 0.001 }).props).toEqual({ min: -1e9, max: 1e9, step: 0.001 });
    expect(clean("Progress", { value: 1e9 }).props).toEqual({ value: 1e9 });
  });

  it("drops render-time function props (formatters, render props)", () => {
    expect(clean("XAxis", { tickFormatter: H }).dropped).toEqual([
      { prop: "tickFormatter", reason: "unsupported-handler" },
    ]);
  });

  it("allows only http(s)/mailto hrefs", () => {
    expect(clean("a", { href: "https://example.com" }).props.href).toBe("https://example.com/");
    const bad = clean("a", { href: "javascript:alert(1)" });
    expect(bad.props.href).toBeUndefined();
    expect(bad.dropped).toEqual([{ prop: "href", reason: "unsafe-url" }]);
  });

  it("allows img src only from data:/blob: and drops srcset", () => {
    expect(clean("img", { src: "data:image/gif;base64,R0lGOD" }).props.src).toBe("data:image/gif;base64,R0lGOD");
    const result = clean("img", { src: "https://tracker.example/p.gif", srcSet: "https://x 2x" });
    expect(result.props).toEqual({});
    expect(result.dropped.map((entry) => entry.reason)).toEqual(["unsafe-url", "unsafe-url"]);
  });

  it("drops form action, formAction, xlink:href and other URL props", () => {
    expect(clean("form", { action: "https://evil.example/", method: "post" }).props).toEqual({});
    expect(clean("button", { formAction: "https://evil.example/" }).props).toEqual({});
    expect(clean("svg", { "xlink:href": "https://evil.example/" }).props).toEqual({});
    expect(clean("div", { background: "https://evil.example/" }).props).toEqual({});
  });

  it("namespaces ids and id references", () => {
    const result = clean("label", { id: "name", htmlFor: "field", "aria-describedby": "a b" });
    expect(result.props).toEqual({ id: "lm-m1-name", htmlFor: "lm-m1-field", "aria-describedby": "lm-m1-a lm-m1-b" });
    expect(clean("div", { id: "bad id!" }).props.id).toBeUndefined();
    expect(clean("label", { for: "x" }).props.htmlFor).toBe("lm-m1-x");
  });

  it("clamps tabIndex and checks enums", () => {
    expect(clean("div", { tabIndex: 99 }).props.tabIndex).toBe(0);
    expect(clean("div", { tabIndex: -5 }).props.tabIndex).toBe(-1);
    // File inputs are allowed since the file capability (the person's choice is the consent; the realm gets handles).
    expect(clean("input", { type: "file", accept: ".csv" }).props).toEqual({ type: "file", accept: ".csv" });
    expect(clean("input", { type: "image" }).props.type).toBeUndefined();
    expect(clean("Button", { variant: "outline", size: "huge" }).props).toEqual({ variant: "outline" });
  });

  it("drops popover, autofocus, contentEditable and unknown props", () => {
    expect(
      clean("div", { popover: "manual", autoFocus: true, contentEditable: true, accessKey: "a", is: "x-y" }).props,
    ).toEqual({});
  });

  it("sanitizes style and className", () => {
    const result = clean("div", {
      style: { position: "fixed", top: 0 },
      className: "fixed inset-0 bg-[url(https://e.example/)]",
    });
    expect(result.props).toEqual({ style: { position: "absolute", top: 0 }, className: "fixed inset-0" });
    expect(result.classTokens).toEqual(["fixed", "inset-0"]);
  });

  it("keeps aria-* and data-* scalars", () => {
    expect(
      clean("div", { "aria-label": "x", "data-row": 3, "data-X": "y", "aria-hidden": true, "data-mount-id": "other" })
        .props,
    ).toEqual({ "aria-label": "x", "data-row": 3, "aria-hidden": true });
  });

  it("filters SVG paint values", () => {
    expect(clean("path", { d: "M0 0L10 10", fill: "red" }).props).toEqual({ d: "M0 0L10 10", fill: "red" });
    expect(clean("rect", { fill: "url(https://evil.example/#g)" }).props).toEqual({});
  });

  it("deep-filters chart config objects", () => {
    const result = clean("Line", {
      dot: { r: 3, href: "https://evil.example/", onClick: H, style: { position: "fixed" }, fill: "url(x)" },
      dataKey: "y",
    });
    expect(result.props).toEqual({ dot: { r: 3, style: { position: "absolute" } }, dataKey: "y" });
  });

  it("never lets children, key or ref through", () => {
    expect(clean("div", { children: "x", key: "k", ref: "r" })).toEqual({
      props: {},
      handlers: {},
      classTokens: [],
      dropped: [],
    });
  });

  it("has no spec for refused elements", () => {
    for (const type of [
      "script",
      "iframe",
      "object",
      "embed",
      "base",
      "meta",
      "link",
      "style",
      "foreignObject",
      "use",
      "image",
      "animate",
      "set",
      "dialog",
    ]) {
      expect(specFor(type), type).toBeUndefined();
    }
    expect(Object.isFrozen(COMPONENT_SPECS)).toBe(true);
  });
});

describe("text-security (a plain field drawn as a password field)", () => {
  it("drops it from style props, in every spelling", () => {
    const result = sanitizeStyle({
      WebkitTextSecurity: "disc",
      textSecurity: "circle",
      MozTextSecurity: "square",
      color: "red",
    });
    expect(result.style).toEqual({ color: "red" });
    expect(result.dropped.sort()).toEqual(["MozTextSecurity", "WebkitTextSecurity", "textSecurity"]);
    expect(sanitizeCssDeclaration("-webkit-text-security", "disc")).toBeNull();
    expect(sanitizeCssDeclaration("-WEBKIT-TEXT-SECURITY", "disc")).toBeNull();
    expect(sanitizeCssDeclaration("text-security", "disc")).toBeNull();
    // Its neighbours in the text-* family stay.
    expect(sanitizeCssDeclaration("text-align", "center")).toBe("center");
    const input = clean("input", { type: "text", style: { WebkitTextSecurity: "disc", width: 100 } });
    expect(input.props.style).toEqual({ width: 100 });
  });

  it("drops it from a checked style sheet", () => {
    const css =
      ".lm-mount input{-webkit-text-security:disc;color:red;}\n.lm-mount .x{text-security:disc !important;}\n@media (min-width:1px){.lm-mount .y{-webkit-text-security:circle;}}";
    expect(sanitizeGeneratedCss(css)).toBe(".lm-mount input{color:red;}");
  });

  it("drops it from utility classes (an arbitrary property)", async () => {
    const generator = await createUtilityCssGenerator();
    const tokens = ["[-webkit-text-security:disc]", "[text-security:disc]", "[-webkit-text-security:square]!", "p-4"];
    const { css } = await generator.generate(new Set(tokens));
    expect(css).not.toMatch(/text-security/i);
    expect(css).toContain(".lm-mount .p-4{padding:1rem;}");
  });
});
