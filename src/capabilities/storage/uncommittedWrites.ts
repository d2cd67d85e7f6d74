/**
 * App data writes received from realms on this page and not yet committed
 * (or failed), counted by createAppData.ts: the test probe reads it
 * (src/testProbe.ts) without loading the capability's code.
 */
let uncommitted = 0;
export const uncommittedAppDataWrites = (): number => uncommitted;
/** One more write received (1), or one committed or failed (-1). */
export const countUncommitted = (change: 1 | -1): void => {
  uncommitted += change;
};
