import { useEffect, useRef } from "react";

/**
 * A `<dialog>` shown modal while its component is mounted: the browser keeps
 * focus inside it (the rest of the page is inert) and Escape closes it.
 * Closing unmounts it, and the focus goes back to what had it before
 * (the browser's own restoring is lost when React removes the element
 * during the close).
 */
export function useModalDialog() {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
    if (element && !element.open) element.showModal();
    return () => {
      if (opener?.isConnected && (document.activeElement === document.body || document.activeElement === null))
        opener.focus();
    };
  }, []);
  return dialog;
}
