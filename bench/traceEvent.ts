/**
 * What the bench tools read of a Chromium trace (CDP `Tracing`, or
 * `browser.startTracing`): one event, and the CPU profile's nodes that
 * `ProfileChunk` events carry. Shared by app.bench.ts, traceFrames.ts,
 * traceHugeReply.ts, traceSessionOpen.ts and sessionOpenAb.ts.
 */
export interface ProfileNode {
  id: number;
  parent?: number;
  callFrame: { functionName: string; url: string; lineNumber?: number };
}

export interface TraceEvent {
  name: string;
  cat?: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  /** The thread's CPU time in the event (µs): less than `dur` when the thread waited for a core. */
  tdur?: number;
  args?: {
    name?: string;
    data?: {
      functionName?: string;
      url?: string;
      cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] };
      timeDeltas?: number[];
    };
  };
  id?: string;
}
