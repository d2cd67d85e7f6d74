/**
 * Which mount reads which reactive source (a Data tree, a StreamedData).
 *
 * The renderer marks the mount whose root is rendering (the host config's
 * `getRootHostContext` runs at the start of every render of a root, and
 * `prepareForCommit` at its end); a read during that window subscribes the
 * mount to the source. Subscriptions only grow over a mount's life (a partial
 * re-render after `useState` does not re-read everything, so a render cannot
 * prove a source unused); an extra subscription costs at most one extra
 * render per frame. Reads outside a render (handlers, effects, timers)
 * subscribe nothing.
 */

export interface Subscriber {
  /** A source it read changed: re-render at the next frame. */
  invalidate(): void;
  /** Called once per new source, so the subscriber can unsubscribe later. */
  addSource(source: ReactiveSource): void;
}

export interface ReactiveSource {
  readonly subscribers: Set<Subscriber>;
  /** True while more of its value is on its way (a data fence is open). */
  isStreaming(): boolean;
}

let active: Subscriber | null = null;

export function setRenderingSubscriber(subscriber: Subscriber | null): void {
  active = subscriber;
}

export function trackRead(source: ReactiveSource): void {
  if (active) subscribe(source, active);
}

export function subscribe(source: ReactiveSource, subscriber: Subscriber): void {
  if (source.subscribers.has(subscriber)) return;
  source.subscribers.add(subscriber);
  subscriber.addSource(source);
}

export function notify(source: ReactiveSource): void {
  for (const subscriber of source.subscribers) subscriber.invalidate();
}
