/**
 * The colour theme: follows the system (prefers-color-scheme) unless the
 * person picked Light or Dark, remembered in this browser. styles.css does
 * the rest: `color-scheme` on the root (set here through `data-theme`)
 * makes every `light-dark()` colour pick its side, so switching is one
 * attribute and never re-renders anything.
 */
export const THEME_CHOICES = ["system", "light", "dark"] as const;
export type ThemeChoice = (typeof THEME_CHOICES)[number];

export const THEME_STORAGE_KEY = "livemark.theme";

export const THEME_LABEL: Record<ThemeChoice, string> = { system: "System", light: "Light", dark: "Dark" };

export function loadTheme(): ThemeChoice {
  try {
    const stored = localStorage.getItem(THEME_STORAGE_KEY);
    return (THEME_CHOICES as readonly string[]).includes(stored ?? "") ? (stored as ThemeChoice) : "system";
  } catch {
    return "system";
  }
}

let systemDark: MediaQueryList | undefined;
let current: ThemeChoice = "system";

/**
 * Apply a choice: `data-theme` for the app's CSS, and the `dark` class on
 * the root for the `dark:` utilities of generated UIs (render/utilityCss.ts
 * uses class mode, so they follow this choice too, not only the system).
 */
export function applyTheme(choice: ThemeChoice, root: HTMLElement = document.documentElement): void {
  current = choice;
  if (choice === "system") root.removeAttribute("data-theme");
  else root.setAttribute("data-theme", choice);
  if (!systemDark && typeof matchMedia === "function") {
    systemDark = matchMedia("(prefers-color-scheme: dark)");
    systemDark.addEventListener("change", () => root.classList.toggle("dark", resolvedTheme() === "dark"));
  }
  root.classList.toggle("dark", resolvedTheme() === "dark");
}

/** The scheme in effect: the choice, or the system's when following it. */
export function resolvedTheme(): "light" | "dark" {
  if (current !== "system") return current;
  return systemDark?.matches ? "dark" : "light";
}

export function saveTheme(choice: ThemeChoice): void {
  applyTheme(choice);
  try {
    if (choice === "system") localStorage.removeItem(THEME_STORAGE_KEY);
    else localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // Storage refused (a private window): the choice holds for this page.
  }
}
