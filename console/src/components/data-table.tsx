/**
 * A table of rows the server already paged (TanStack Table renders the columns; the paging is the admin API's):
 * a caption naming it, one header row, and a line saying when there is nothing to show.
 *
 * A column may name a width class (`meta: { width: 'wide' }`): long ids and URLs wrap anywhere (styles.css), so
 * a table fits the page at 1366 px instead of scrolling sideways, and a column of prose keeps room to be read.
 */
import { tableFeatures, useTable, type ColumnDef, type RowData } from '@tanstack/preact-table';

interface ColumnLook {
  width?: 'wide' | 'narrow';
}

export const features = tableFeatures({ columnMeta: {} as ColumnLook });
export type Columns<T extends RowData> = ColumnDef<typeof features, T>[];

export function DataTable<T extends RowData>(props: {
  caption: string;
  columns: Columns<T>;
  data: T[];
  empty: string;
  rowId: (row: T) => string;
}) {
  const table = useTable({ features, columns: props.columns, data: props.data, getRowId: props.rowId });
  return (
    <div class="overflow-auto">
      <table class="striped fitted">
        <caption>{props.caption}</caption>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th key={header.id} scope="col" class={header.column.columnDef.meta?.width}>
                  {header.isPlaceholder ? null : <table.FlexRender header={header} />}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.length === 0 ? (
            <tr>
              <td colSpan={props.columns.length}>{props.empty}</td>
            </tr>
          ) : (
            table.getRowModel().rows.map((row) => (
              <tr key={row.id}>
                {row.getAllCells().map((cell) => (
                  <td key={cell.id} class={cell.column.columnDef.meta?.width}>
                    <table.FlexRender cell={cell} />
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
