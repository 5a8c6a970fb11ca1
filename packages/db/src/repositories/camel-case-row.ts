/** A column's name as a record's field: `project_id` → `projectId`. */
export type CamelCase<Name extends string> = Name extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : Name;

/** A row with its columns named as the records name their fields, each keeping its type. */
export type CamelCased<Row> = { [Column in keyof Row & string as CamelCase<Column>]: Row[Column] };

// A table has a few dozen column names: each is converted once, not on every row of every read.
const fieldNames = new Map<string, string>();

function fieldName(column: string): string {
  let name = fieldNames.get(column);
  if (name === undefined) {
    name = column.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
    fieldNames.set(column, name);
  }
  return name;
}

/**
 * The row as a record: every column under its camelCase name, the values as the driver read
 * them. kysely's CamelCasePlugin would do this for every query of a connection, which means
 * camelCase table types under every query and the raw SQL's columns too; the repositories keep
 * the database's names and convert here, where a row becomes a record. A column the record
 * leaves out is taken off the row before this.
 */
export function camelCaseRow<Row extends object>(row: Row): CamelCased<Row> {
  const record: Record<string, unknown> = {};
  for (const column of Object.keys(row)) record[fieldName(column)] = row[column as keyof Row];
  return record as CamelCased<Row>;
}
