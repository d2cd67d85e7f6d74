/** The part of React's scheduler (the `scheduler` package react-dom runs its work on) that redrawPacing.ts uses. */
declare module "scheduler" {
  export const unstable_IdlePriority: number;
  export function unstable_scheduleCallback(priority: number, callback: () => void): unknown;
}
