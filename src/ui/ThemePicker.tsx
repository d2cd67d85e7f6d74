import { useState } from "react";
import { loadTheme, saveTheme, THEME_CHOICES, THEME_LABEL, type ThemeChoice } from "./theme";

/** **Theme**: System, Light or Dark (theme.ts). */
export function ThemePicker() {
  const [choice, setChoice] = useState<ThemeChoice>(loadTheme);
  return (
    <label className="lm-theme-picker">
      <span>Theme</span>
      <select
        value={choice}
        onChange={(event) => {
          const next = event.target.value as ThemeChoice;
          saveTheme(next);
          setChoice(next);
        }}
      >
        {THEME_CHOICES.map((value) => (
          <option key={value} value={value}>
            {THEME_LABEL[value]}
          </option>
        ))}
      </select>
    </label>
  );
}
