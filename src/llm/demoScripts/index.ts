/**
 * The offline demo model's scripts. To add one, write a file beside these
 * that exports a `DemoScript` and list it here; the first entry is the
 * default when no keyword matches.
 */
import { csvChart } from "./csvChart";
import { diceButton } from "./diceButton";
import { fetchChart } from "./fetchChart";
import { filmTools } from "./filmTools";
import { fixError } from "./fixError";
import { infiniteLoop } from "./infiniteLoop";
import { intro } from "./intro";
import { liveProgress } from "./liveProgress";
import { markdownTour } from "./markdownTour";
import { pizzaForm } from "./pizzaForm";
import { primes } from "./primes";
import { slotDashboard } from "./slotDashboard";
import { streamedChart } from "./streamedChart";
import { todoList } from "./todoList";
import { translator } from "./translator";
import type { DemoScript } from "./script";

export type { DemoScript, DemoStep } from "./script";

/** In order of preference when two scripts match a message equally well. */
export const DEMO_SCRIPTS: readonly DemoScript[] = Object.freeze([
  intro,
  primes,
  fixError,
  infiniteLoop,
  // Generative UI, one script per data flow.
  pizzaForm,
  liveProgress,
  streamedChart,
  diceButton,
  slotDashboard,
  // App data that lasts.
  todoList,
  // Reaching outside, with the person's consent.
  fetchChart,
  csvChart,
  filmTools,
  // A UI that calls the model (ai.complete).
  translator,
  markdownTour,
]);

/** Messages a person can send to see each script (for the empty-session screen). */
export const DEMO_SUGGESTIONS: readonly string[] = Object.freeze(DEMO_SCRIPTS.map((script) => script.suggestion));
