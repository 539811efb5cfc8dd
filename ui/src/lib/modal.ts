// What every modal `<dialog>` of the app does the same way: open as a modal (the page behind is
// inert), close on Esc whether or not the browser sends `cancel`, and give the focus back to
// whatever had it when it closes.

/**
 * Opens `dialog` as a modal (jsdom has no `showModal`: the `open` attribute gives the same
 * markup there) and returns what undoes it: the dialog closed, the focus back where it was.
 */
export function openModal(dialog: HTMLDialogElement | undefined): () => void {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  if (dialog) {
    if (typeof dialog.showModal === 'function') dialog.showModal();
    else dialog.setAttribute('open', '');
  }
  return () => {
    // The page behind a modal dialog is inert: close it before handing the focus back.
    if (dialog?.open && typeof dialog.close === 'function') dialog.close();
    if (opener?.isConnected) opener.focus();
  };
}

/** The dialog's handlers that make Esc call `close`: the browser's `cancel` on a modal, and
 * the key itself where no `cancel` comes (and a select or field has not used it). */
export function escapeCloses(close: () => void): {
  oncancel: (event: Event) => void;
  onkeydown: (event: KeyboardEvent) => void;
} {
  return {
    oncancel(event) {
      event.preventDefault();
      close();
    },
    onkeydown(event) {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      event.preventDefault();
      close();
    },
  };
}
