/**
 * The header's overflow: the actions that do not fit a mid-width window
 * (tablets, half a screen) wait behind **More**. On a phone (icons) and on
 * a wide window (words) they sit in the header as before and **More** is
 * not shown: styles.css decides, so the buttons are the same elements at
 * every width and keep their names.
 *
 * A disclosure, not an ARIA menu: the actions stay buttons in the tab
 * order after **More**. Escape closes it and puts the focus back on
 * **More**; a press outside, the focus leaving it, or using an action
 * closes it too.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { MoreIcon } from "./icons";

export function HeaderMore({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const id = useId();

  useEffect(() => {
    if (!open) return;
    const outside = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", outside, { capture: true });
    return () => document.removeEventListener("pointerdown", outside, { capture: true });
  }, [open]);

  return (
    <div
      ref={root}
      className={`lm-header__more${open ? " lm-header__more--open" : ""}`}
      onKeyDown={(event) => {
        if (event.key !== "Escape" || !open) return;
        // Closing the list is all this Escape does (it does not also stop a reply).
        event.stopPropagation();
        setOpen(false);
        toggle.current?.focus();
      }}
      onBlur={(event) => {
        if (open && !root.current?.contains(event.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button
        ref={toggle}
        type="button"
        className="lm-button lm-header__more-toggle"
        aria-expanded={open}
        aria-controls={id}
        title="More actions: Export, Share, Invite agent"
        onClick={() => setOpen((value) => !value)}
      >
        <MoreIcon className="lm-header__more-icon" />
        <span>More</span>
      </button>
      <div
        id={id}
        className="lm-header__overflow"
        onClick={(event) => {
          if ((event.target as Element).closest("button")) setOpen(false);
        }}
      >
        {children}
      </div>
    </div>
  );
}
