/**
 * An ask's view behind a dynamic import, so the views (and AskActions) are
 * not part of the JavaScript the page needs before the composer works
 * (`app.initialJsGzipKB`, bench/). The chunk is requested by the first ask
 * drawn, or by `preload` (main.tsx, once the session is open and the page
 * idle), so it is normally there before any ask and the ask is drawn in the
 * render that brings it; until it has arrived, the ask is drawn once it has
 * (its buttons arm from then, AskActions).
 */
import { createElement, lazy, Suspense, useState, type ComponentType } from "react";

export type LazyView<Props> = ComponentType<Props> & { preload(): Promise<unknown> };

export function lazyView<Props extends object>(load: () => Promise<ComponentType<Props>>): LazyView<Props> {
  let pending: Promise<{ default: ComponentType<Props> }> | undefined;
  let loaded: ComponentType<Props> | undefined;
  const preload = () =>
    (pending ??= load().then(
      (View) => ({ default: (loaded = View) }),
      (error: unknown) => {
        pending = undefined;
        throw error;
      },
    ));
  const Loaded = lazy(preload) as unknown as ComponentType<Props>;
  function View(props: Props) {
    // Loaded already (the usual case): drawn in the first render. Chosen once: a view drawn by the lazy one is not
    // drawn again by the loaded one (its buttons' arming would restart).
    const [Direct] = useState(() => loaded);
    return Direct
      ? createElement(Direct, props)
      : createElement(Suspense, { fallback: null }, createElement(Loaded, props));
  }
  return Object.assign(View, { preload });
}
