/**
 * An ask's view behind a dynamic import, so the views (and AskActions) are
 * not part of the JavaScript the page needs before the composer works
 * (`app.initialJsGzipKB`, bench/). The chunk is requested by the first ask
 * drawn, or by `preload` (main.tsx, once the session is open and the page
 * idle), so it is normally there before any ask; until it is, the ask is
 * drawn once it has arrived (its buttons arm from then, AskActions).
 */
import { createElement, lazy, Suspense, type ComponentType } from "react";

export type LazyView<Props> = ComponentType<Props> & { preload(): Promise<unknown> };

export function lazyView<Props extends object>(load: () => Promise<ComponentType<Props>>): LazyView<Props> {
  let pending: Promise<{ default: ComponentType<Props> }> | undefined;
  const preload = () =>
    (pending ??= load().then(
      (View) => ({ default: View }),
      (error: unknown) => {
        pending = undefined;
        throw error;
      },
    ));
  const Loaded = lazy(preload) as unknown as ComponentType<Props>;
  const View = (props: Props) => createElement(Suspense, { fallback: null }, createElement(Loaded, props));
  return Object.assign(View, { preload });
}
