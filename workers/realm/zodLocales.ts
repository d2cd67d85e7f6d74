/**
 * What the realm bundle puts in place of zod's `locales` (see
 * vite.realm.config.ts): English only. `z.locales` would otherwise carry the
 * error messages of every language zod knows, about half of zod's size, for a
 * realm whose validation messages are read by the model and the person in
 * English.
 */
export { default as en } from "zod/v4/locales/en.js";
