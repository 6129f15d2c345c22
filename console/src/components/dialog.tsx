/**
 * A modal dialog on the browser's own <dialog> (focus kept inside, Escape closes it): every change the console makes
 * is one of these away, so nothing happens on a single stray click.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

export function Dialog(props: { title: string; open: boolean; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={props.onClose}>
      <article>
        <header>
          <button type="button" aria-label="Close" class="close" onClick={props.onClose} />
          <h2 id={titleId}>{props.title}</h2>
        </header>
        {props.open ? props.children : null}
      </article>
    </dialog>
  );
}

/** A question and the action it guards: the action runs only on "confirm", and its error is shown in place. */
export function Confirm(props: {
  title: string;
  open: boolean;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  /** The action cannot run yet (nothing to do, or a risk not yet accepted). */
  disabled?: boolean;
  error?: string | undefined;
  onConfirm: () => void;
  onClose: () => void;
  children: ComponentChildren;
}) {
  return (
    <Dialog title={props.title} open={props.open} onClose={props.onClose}>
      {props.children}
      {props.error ? (
        <p role="alert" class="error">
          {props.error}
        </p>
      ) : null}
      <footer class="sticky-footer">
        <button type="button" class="secondary" onClick={props.onClose}>
          Cancel
        </button>
        <button
          type="button"
          class={props.danger ? 'danger' : ''}
          aria-busy={props.busy}
          disabled={props.busy || props.disabled}
          onClick={props.onConfirm}
        >
          {props.confirmLabel}
        </button>
      </footer>
    </Dialog>
  );
}
