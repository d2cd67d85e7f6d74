/**
 * The buttons of an ask (of any kind: a network request, a tool call), and what keeps
 * them from being clicked by accident or by a trap (issue 32):
 * - they take no click until they have stayed where they are for 500 ms
 *   (askArming.ts): after the ask appears, moves, or changes step. Until
 *   then each button is `aria-disabled` and the row says
 *   `data-armed="false"`; the place is measured on every layout change the
 *   page reports (ResizeObserver, resize, scroll) and again at the click;
 * - **Always …** is a second step: the ask says what "always" covers and
 *   waits for **Confirm** (or **Cancel**, back to the three answers).
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { AskAnswer, CapabilityController } from "../session/capabilityController";
import { createAskArming, type AskBox } from "./askArming";

const boxOf = (element: Element): AskBox => {
  const rect = element.getBoundingClientRect();
  return { left: rect.left, top: rect.top, width: rect.width, height: rect.height };
};

/**
 * Arms a row of buttons: `armed` turns true once it sat still for 500 ms;
 * `accept()` at a click says whether that click counts. A new `step` waits again.
 */
function useAskArming(step: string) {
  const ref = useRef<HTMLDivElement>(null);
  const arming = useMemo(() => createAskArming(() => performance.now()), []);
  const [armed, setArmed] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const check = useCallback(() => {
    const element = ref.current;
    if (!element) return;
    arming.place(boxOf(element));
    const left = arming.remaining();
    setArmed(left === 0);
    clearTimeout(timer.current);
    // Not a test's sleep: this is the rule's own wait, re-checked against the clock when it ends.
    if (left > 0) timer.current = setTimeout(check, left + 1);
  }, [arming]);

  useLayoutEffect(() => {
    arming.reset();
    setArmed(false);
    check();
  }, [step, arming, check]);

  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(() => check());
    // Its own size, and what it sits in: the ask, the asks' area, the footer, the page.
    for (let node: Element | null = element; node; node = node.parentElement) observer.observe(node);
    window.addEventListener("resize", check);
    document.addEventListener("scroll", check, { capture: true, passive: true });
    return () => {
      observer.disconnect();
      window.removeEventListener("resize", check);
      document.removeEventListener("scroll", check, { capture: true });
      clearTimeout(timer.current);
    };
  }, [check]);

  const accept = useCallback(() => {
    const element = ref.current;
    if (!element) return false;
    const counts = arming.click(boxOf(element));
    if (!counts) check();
    return counts;
  }, [arming, check]);

  return { ref, armed, accept };
}

export interface AlwaysOption {
  /** The answer that remembers, its kind's `always`: "host" for a request, "tool" for a tool call. */
  answer: AskAnswer;
  /** The button: "Always allow this host" / "Always allow this tool". */
  label: string;
  title: string;
  /** What "always" covers, asked before it is given: "Always allow api.example for this session? …". */
  question: string;
}

export function AskActions({
  askId,
  controller,
  always,
}: {
  askId: string;
  controller: Pick<CapabilityController, "answer">;
  always: AlwaysOption;
}) {
  const [confirming, setConfirming] = useState(false);
  const { ref, armed, accept } = useAskArming(confirming ? "confirm" : "answer");
  const button = (label: string, onPress: () => void, options: { primary?: boolean; title?: string } = {}) => (
    <button
      type="button"
      className={options.primary ? "lm-button lm-button--primary" : "lm-button"}
      title={options.title}
      aria-disabled={armed ? undefined : true}
      onClick={() => {
        if (accept()) onPress();
      }}
    >
      {label}
    </button>
  );
  if (confirming) {
    return (
      <div ref={ref} className="lm-ask__actions lm-ask__actions--confirm" data-armed={armed}>
        <p className="lm-ask__question">{always.question}</p>
        {button("Confirm", () => controller.answer(askId, always.answer), { primary: true })}
        {button("Cancel", () => setConfirming(false))}
      </div>
    );
  }
  return (
    <div ref={ref} className="lm-ask__actions" data-armed={armed}>
      {button("Allow once", () => controller.answer(askId, "once"), { primary: true })}
      {button(always.label, () => setConfirming(true), { title: always.title })}
      {button("Deny", () => controller.answer(askId, "deny"))}
    </div>
  );
}
