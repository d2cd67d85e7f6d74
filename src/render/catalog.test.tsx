/**
 * The catalog rendered to static markup in Node (no DOM needed): what
 * reaches the page for hostile and ordinary trees. Events, effects, lazy
 * charts and icons are covered by the browser tests (e2e/render.test.ts).
 */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { CATALOG, componentFor } from "./catalog";
import { COMPONENT_SPECS } from "./componentSpecs";
import { KIT_COMPONENTS, KIT_ICON_NAMES, type MountSnapshot, type SnapshotNode } from "./contract";
import { MountView, idPrefixFor } from "./MountView";
import { createMountStore, fromSnapshot, type MountStore } from "./mountStore";
import { iconCandidates } from "./iconNames";
import { isDrawableType } from "./drawable";
import { COMMON_ICONS } from "./iconsCommon";
import { findAnyIcon } from "./iconsAll";

const H = { $handler: true } as const;
let nextId = 1;

/** A snapshot node: el("div", { className: "x" }, "text", el(...)). */
function el(
  type: string,
  props: Record<string, unknown> = {},
  ...children: Array<SnapshotNode | string>
): SnapshotNode {
  return {
    id: nextId++,
    type,
    props: props as never,
    children: children.map((child) =>
      typeof child === "string" ? { id: nextId++, type: "#text", text: child } : child,
    ),
  };
}

function render(nodes: SnapshotNode[], configure?: (store: MountStore) => void): string {
  const store = createMountStore({ mountId: "m1" });
  expect(store.load({ nodes } satisfies MountSnapshot)).toEqual([]);
  configure?.(store);
  return renderToStaticMarkup(<MountView store={store} sendEvent={() => {}} />);
}

describe("catalog", () => {
  it("covers every kit component of the wire contract, and nothing without a spec", () => {
    for (const name of KIT_COMPONENTS) expect(componentFor(name), name).toBeDefined();
    for (const name of Object.keys(CATALOG)) expect(COMPONENT_SPECS[name], name).toBeDefined();
    for (const name of Object.keys(COMPONENT_SPECS)) expect(CATALOG[name], name).toBeDefined();
    expect(Object.isFrozen(CATALOG)).toBe(true);
  });

  it("lets the registry tell drawable types without the catalog: the same answer as componentFor", () => {
    const names = [
      ...Object.keys(COMPONENT_SPECS),
      ...KIT_ICON_NAMES.map((name) => `${name}Icon`),
      "Icon",
      "Iconic",
      "script",
      "iframe",
      "Nope",
      "#text",
      "constructor",
      "__proto__",
    ];
    for (const name of names) expect(isDrawableType(name), name).toBe(componentFor(name) !== undefined);
  });

  it("renders every wire icon name as an icon type", () => {
    for (const name of KIT_ICON_NAMES) expect(componentFor(`${name}Icon`), name).toBeDefined();
    expect(componentFor("Icon")).toBeDefined();
    expect(componentFor("Iconic")).toBeUndefined();
  });

  it("bundles exactly the wire's common icons in the small chunk", () => {
    expect(Object.keys(COMMON_ICONS).sort()).toEqual([...KIT_ICON_NAMES].sort());
    for (const name of KIT_ICON_NAMES) expect(COMMON_ICONS[name], name).toBeDefined();
  });

  it("reads icon names the way models write them", () => {
    expect(iconCandidates("Star")).toEqual(["Star"]);
    expect(iconCandidates("StarIcon")).toEqual(["Star", "StarIcon"]);
    expect(iconCandidates("arrow-right")).toEqual(["ArrowRight"]);
    expect(iconCandidates("star")).toEqual(["Star"]);
    expect(iconCandidates("<svg>")).toEqual([]);
    expect(findAnyIcon("CircleAlert")).toBeDefined();
    expect(findAnyIcon("Kangaroo")).toBeUndefined();
    expect(findAnyIcon("createLucideIcon")).toBeUndefined();
    expect(findAnyIcon("icons")).toBeUndefined();
  });
});

describe("MountView markup", () => {
  it("draws a contained panel", () => {
    const html = render([el("p", {}, "hi")]);
    // The origin line comes first, outside the panel (the mount cannot draw over it).
    expect(html).toMatch(/^<div class="lm-mount-origin"[^>]*><span>Made by the model<\/span><\/div>/);
    const panel = html.slice(html.indexOf('<div class="lm-mount"'));
    expect(panel).toMatch(
      /^<div class="lm-mount" style="contain:layout paint;overflow:auto;position:relative;isolation:isolate"/,
    );
    expect(html).toContain("<p>hi</p>");
  });

  it("renders refused and unknown components as inline notes, never as elements", () => {
    const html = render([
      el("script", {}, "alert(1)"),
      el("iframe", { src: "https://evil.example/" }),
      el("style", {}, "body{display:none}"),
      el("FancyWidget", {}),
    ]);
    expect(html).not.toMatch(/<script|<iframe|<style/);
    expect(html).toContain("&lt;script&gt; is not allowed here");
    expect(html).toContain("&lt;iframe&gt; is not allowed here");
    expect(html).toContain("Unknown component &lt;FancyWidget&gt;");
    expect(html).not.toContain("alert(1)");
  });

  it("neutralises links, images, raw HTML, string handlers and fixed positioning", () => {
    const html = render([
      el("a", { href: "javascript:alert(1)" }, "bad"),
      el("a", { href: "https://example.com/" }, "good"),
      el("img", { src: "https://tracker.example/p.gif", onError: "alert(1)" }),
      el("div", {
        dangerouslySetInnerHTML: { __html: "<b>x</b>" },
        onClick: "alert(1)",
        style: { position: "fixed", zIndex: 99999 },
      }),
      el("form", { action: "https://evil.example/" }),
    ]);
    expect(html).not.toContain("javascript:");
    expect(html).toContain(
      '<a href="https://example.com/" target="_blank" rel="noopener noreferrer" referrerPolicy="no-referrer">good</a>',
    );
    expect(html).not.toContain("tracker.example");
    expect(html).not.toMatch(/onerror|onclick|<b>x<\/b>|evil\.example/i);
    expect(html).toContain('style="position:absolute;z-index:100"');
  });

  it("namespaces ids", () => {
    const html = render([el("label", { htmlFor: "email" }, "Email"), el("input", { id: "email", name: "email" })]);
    const prefix = idPrefixFor("m1");
    expect(html).toContain(`for="${prefix}email"`);
    expect(html).toContain(`id="${prefix}email"`);
    expect(html).not.toMatch(/id="email"/);
  });

  it("renders host-owned values and field errors", () => {
    const html = render(
      [
        el(
          "form",
          { onSubmit: H },
          el("Input", { name: "email", value: "x@" }),
          el("Checkbox", { name: "agree", defaultChecked: true }),
        ),
      ],
      (store) => store.setFormErrors({ email: "Enter a valid email", "": "Please fix the form", nickname: "Required" }),
    );
    expect(html).toMatch(
      /<input aria-invalid="true" aria-describedby="([^"]+)" class="lmk-input" name="email" value="x@"\/><span class="lmk-field-error" id="\1"/,
    );
    expect(html).toContain("Enter a valid email");
    expect(html).toContain('role="checkbox" aria-checked="true"');
    expect(html).toContain("Please fix the form");
    expect(html).toContain("nickname: Required");
  });

  it("folds Select parts into a native select", () => {
    const html = render([
      el(
        "Select",
        { name: "fruit", defaultValue: "b" },
        el("SelectTrigger", { className: "w-40", id: "fruit" }, el("SelectValue", { placeholder: "Pick one" })),
        el("SelectContent", {}, el("SelectItem", { value: "a" }, "Apple"), el("SelectItem", { value: "b" }, "Banana")),
      ),
    ]);
    expect(html).toMatch(/<select id="lm-m1-[^"]+-fruit" class="lmk-select w-40"/);
    expect(html).toContain('<option value="a">Apple</option><option value="b" selected="">Banana</option>');
  });

  it("shows only the active tab", () => {
    const html = render([
      el(
        "Tabs",
        { defaultValue: "two" },
        el("TabsList", {}, el("TabsTrigger", { value: "one" }, "One"), el("TabsTrigger", { value: "two" }, "Two")),
        el("TabsContent", { value: "one" }, "First"),
        el("TabsContent", { value: "two" }, "Second"),
      ),
    ]);
    expect(html).toContain("Second");
    expect(html).not.toContain("First");
    expect(html).toMatch(/aria-selected="true"[^>]*>Two</);
  });

  it("renders the rest of the kit", () => {
    const html = render([
      el(
        "Card",
        { className: "w-full" },
        el("CardHeader", {}, el("CardTitle", {}, "Title")),
        el("CardContent", {}, el("Badge", { variant: "secondary" }, "New")),
      ),
      el("Button", { variant: "outline", size: "sm", onClick: H }, "Go"),
      el("Progress", { value: 40 }),
      el("Alert", { variant: "destructive" }, el("AlertTitle", {}, "Oops")),
      el("Table", {}, el("TableBody", {}, el("TableRow", {}, el("TableCell", {}, "1")))),
      el("Switch", {}),
      el("Slider", { defaultValue: [30], max: 50 }),
      el("Separator", {}),
      el("Skeleton", {}),
    ]);
    expect(html).toContain('class="lmk-card w-full"');
    expect(html).toContain('data-variant="outline" data-size="sm"');
    expect(html).toContain('aria-valuenow="40"');
    expect(html).toContain('style="width:40%"');
    expect(html).toContain('class="lmk-alert" data-variant="destructive" role="alert"');
    expect(html).toContain('<td class="lmk-table-cell">1</td>');
    expect(html).toContain('role="switch" aria-checked="false"');
    expect(html).toMatch(/type="range"[^>]*max="50"[^>]*value="30"/);
    expect(html).not.toContain("Unknown component");
  });

  it("says so when a chart part stands outside a chart", () => {
    expect(render([el("XAxis", { dataKey: "x" })])).toContain("&lt;XAxis&gt; must be inside a chart");
  });

  it("renders `hidden` nodes as nothing", () => {
    expect(render([el("p", { hidden: true }, "secret"), el("p", {}, "shown")])).not.toContain("secret");
  });

  it("renders a restored snapshot inert: controls disabled, revive offered", () => {
    const { store } = fromSnapshot(
      { nodes: [el("Input", { name: "a" }), el("Button", {}, "Go"), el("button", {}, "raw")] },
      { mountId: "m1" },
    );
    const html = renderToStaticMarkup(<MountView store={store} sendEvent={() => {}} onRevive={() => {}} />);
    expect(html).toContain("data-inert");
    expect(html).toMatch(/<input[^>]*disabled=""/);
    expect(html).toMatch(/<button class="lmk-button"[^>]*disabled=""/);
    expect(html).toMatch(/<button disabled="">raw<\/button>/);
    expect(html).toContain("Revive");
  });

  it("shows the realm's render error instead of the tree", () => {
    const html = render([el("p", {}, "old")], (store) =>
      store.setRenderError({ code: "render", name: "TypeError", message: "x is undefined", component: "Chart" }),
    );
    expect(html).toContain("TypeError: x is undefined (in &lt;Chart&gt;)");
    expect(html).not.toContain("old");
  });
});
