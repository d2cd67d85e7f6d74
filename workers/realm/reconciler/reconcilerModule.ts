/**
 * Where the realm's react-reconciler comes from. In Node (unit tests) it is
 * the package itself; the realm bundle replaces this file
 * (vite.realm.config.ts, `reconcilerModuleCode`) with react-reconciler and
 * its scheduler built on their own, React left outside, and kept as text,
 * which `loadCreateReconciler` compiles when the first mount needs it. The
 * reconciler is the largest piece of the bundle that a statement without a
 * UI never runs: as text, the worker does not parse it before READY.
 */
import createReconciler from "react-reconciler";
import type * as ReactNamespace from "react";

/** react-reconciler's factory, bound to `react` (the realm's one React: hooks need the renderer's and the model's to be the same). Call it once. */
export function loadCreateReconciler(react: typeof ReactNamespace): typeof createReconciler {
  void react;
  return createReconciler;
}
