import { useEffect, useState } from "react";

const NONE: readonly string[] = [];
let loaded: readonly string[] | undefined;

/**
 * The demo model's suggested messages, for the empty-session screen. The
 * scripts they come from load after the first paint (they are most of the
 * demo model and nothing else of the first load needs them): until then,
 * and when `enabled` is false, there are none.
 */
export function useDemoSuggestions(enabled: boolean): readonly string[] {
  const [suggestions, setSuggestions] = useState(() => loaded ?? NONE);
  useEffect(() => {
    if (!enabled || loaded) return;
    let live = true;
    void import("../llm/demoScripts").then(({ DEMO_SUGGESTIONS }) => {
      loaded = DEMO_SUGGESTIONS;
      if (live) setSuggestions(DEMO_SUGGESTIONS);
    });
    return () => void (live = false);
  }, [enabled]);
  return enabled ? (loaded ?? suggestions) : NONE;
}
