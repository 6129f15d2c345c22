/** Previous and next page of a list the server pages (by page number or by Temporal's page token). */
export function Pager(props: { label: string; hasPrevious: boolean; hasNext: boolean; onPrevious: () => void; onNext: () => void }) {
  return (
    <nav aria-label={props.label} class="pager">
      <button type="button" class="outline" disabled={!props.hasPrevious} onClick={props.onPrevious}>
        Previous page
      </button>
      <button type="button" class="outline" disabled={!props.hasNext} onClick={props.onNext}>
        Next page
      </button>
    </nav>
  );
}
