/** A state written as a word with its colour (never colour alone), for tasks, accounts and deliveries. */
export function Status(props: { value: string }) {
  return <span class={`status status-${props.value.replace(/[^a-z_]/g, '')}`}>{props.value.replace(/_/g, ' ')}</span>;
}

/** A page's error or loading line. */
export function LoadState(props: { error: string | undefined; loading: boolean }) {
  if (props.error)
    return (
      <p role="alert" class="error">
        {props.error}
      </p>
    );
  return props.loading ? <p aria-busy="true">Loading…</p> : null;
}
