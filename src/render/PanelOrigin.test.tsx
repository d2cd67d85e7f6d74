import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { PanelOrigin } from "./PanelOrigin";

describe("PanelOrigin", () => {
  it("draws the title as the heading, then who made the panel, on the origin line", () => {
    const html = renderToStaticMarkup(
      <PanelOrigin title="show_film">
        <span>App from films</span>
        <span>· not made by Livemark</span>
      </PanelOrigin>,
    );
    expect(html).toMatch(
      /^<div class="lm-mount-origin" style="[^"]*"><h3 style="[^"]*">show_film<\/h3><span>App from films<\/span><span>· not made by Livemark<\/span><\/div>$/,
    );
  });

  it("has no heading without a title, and a title is text, never markup", () => {
    expect(renderToStaticMarkup(<PanelOrigin>{"Made by the model"}</PanelOrigin>)).not.toContain("<h3");
    const html = renderToStaticMarkup(<PanelOrigin title={'<img src=x onerror="alert(1)">'}>x</PanelOrigin>);
    expect(html).toContain("&lt;img src=x");
    expect(html).not.toContain("<img");
  });
});
