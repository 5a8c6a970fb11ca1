import type { Selectable } from "kysely";
import type { MessagesTable } from "../tables/message.table";
import type { MessageCopy, ParsedContent, StoreMessageInput } from "./message-store.types";

/** The SQL types a field takes in the store statement's inputs, and the TypeScript type of its value. */
interface SqlTypes {
  text: string;
  int: number;
  boolean: boolean;
  /** Sent as ISO text. */
  timestamptz: Date;
  jsonb: object;
  /** Sent as a jsonb array and made a text[] by the insert. */
  "text[]": readonly string[];
}
type SqlType = keyof SqlTypes;

type MessageRow = Selectable<MessagesTable>;

/** How the store statement fills one column of `messages`, the value being a `T`. */
type ColumnSource<T> =
  /** A field of the parsed source, sent once however many copies it has (the statement's `content` input). */
  | { from: "source"; type: SqlType; value: (input: StoreMessageInput) => T }
  /** A field of one copy (the statement's `copies` input). */
  | { from: "copy"; type: SqlType; value: (copy: MessageCopy) => T }
  /** A body: sent in the statement's text[] parameter of bodies, outside the jsonb (see storeStatement). */
  | { from: "body"; value: (content: ParsedContent) => T }
  /** Computed by the insert, from its input row `v` and the copy's locked inbox `l`. */
  | { from: "statement"; sql: string }
  /** Left to the table's default: the store never writes it. */
  | { from: "default" };

const source = <S extends SqlType, T extends SqlTypes[S] | null>(type: S, value: (input: StoreMessageInput) => T) => ({ from: "source", type, value }) as const;
const copy = <S extends SqlType, T extends SqlTypes[S] | null>(type: S, value: (copy: MessageCopy) => T) => ({ from: "copy", type, value }) as const;
const body = <T extends string | null>(value: (content: ParsedContent) => T) => ({ from: "body", value }) as const;
const computed = (sql: string) => ({ from: "statement", sql }) as const;
const tableDefault = { from: "default" } as const;

/**
 * Every column of `messages` and where the store takes its value: the one list the store
 * statement's lists are generated from. It satisfies a type mapped over the table's row, so a
 * column missing here, a misspelt one, or a value of another type than its column's does not
 * compile; a column a list forgot would otherwise be inserted as NULL without a word.
 */
const MESSAGE_COLUMN_SOURCES = {
  id: copy("text", (c) => c.newMessageId),
  project_id: source("text", (input) => input.projectId),
  inbox_id: copy("text", (c) => c.inboxId),
  seq: tableDefault,
  // Visible now: streamed now. A later visible_at is revealed by revealMessage.
  stream_seq: computed("case when v.visible_at <= v.received_at then nextval('message_stream_seq') end"),
  kind: source("text", (input) => input.kind),
  raw_key: source("text", (input) => input.rawKey),
  size: source("int", (input) => input.size),
  envelope_from: source("text", (input) => input.envelopeFrom),
  envelope_to: copy("text", (c) => c.envelopeTo),
  message_id: source("text", ({ content }) => content.messageId),
  correlation_id: source("text", ({ content }) => content.correlationId),
  subject: source("text", ({ content }) => content.subject),
  from_address: source("text", ({ content }) => content.from?.address ?? null),
  from_name: source("text", ({ content }) => content.from?.name ?? null),
  to: source("jsonb", ({ content }) => content.to),
  cc: source("jsonb", ({ content }) => content.cc),
  reply_to: source("jsonb", ({ content }) => content.replyTo),
  headers: source("jsonb", ({ content }) => content.headers),
  labels: copy("jsonb", (c) => c.labels),
  text_body: body((content) => content.textBody),
  html_body: body((content) => content.htmlBody),
  header_block: body((content) => content.headerBlock),
  parts: source("jsonb", ({ content }) => content.parts),
  codes: source("text[]", ({ content }) => content.codes),
  links: source("jsonb", ({ content }) => content.links),
  parse_error: source("text", ({ content }) => content.parseError),
  parse_warnings: source("text[]", ({ content }) => content.parseWarnings),
  checks: source("jsonb", ({ content }) => content.checks ?? null),
  complaint: copy("boolean", (c) => c.complaint),
  received_at: source("timestamptz", (input) => input.receivedAt),
  visible_at: copy("timestamptz", (c) => c.visibleAt),
  expires_at: computed("v.received_at + l.retention_seconds * interval '1 second'"),
  deleted_at: tableDefault,
} satisfies { [Column in keyof MessageRow]: ColumnSource<MessageRow[Column]> };

const COLUMNS = Object.entries(MESSAGE_COLUMN_SOURCES) as [string, ColumnSource<unknown>][];

type Origin = ColumnSource<unknown>["from"];
type Sourced<From extends Origin> = [name: string, source: Extract<ColumnSource<unknown>, { from: From }>];
const sourced = <From extends Origin>(...from: From[]) => COLUMNS.filter((entry): entry is Sourced<From> => (from as Origin[]).includes(entry[1].from));

const SOURCE_COLUMNS = sourced("source");
const COPY_COLUMNS = sourced("copy");
const BODY_COLUMNS = sourced("body");
const WRITTEN_COLUMNS = sourced("source", "copy", "body", "statement");

const quoted = (name: string) => `"${name}"`;
const recordsetType = (type: SqlType) => (type === "text[]" ? "jsonb" : type);
const recordsetFields = (columns: Sourced<"source" | "copy">[]) => columns.map(([name, column]) => `${quoted(name)} ${recordsetType(column.type)}`).join(", ");

/** The insert's expression for a column: read from the input row `v`, the bodies `p.bodies`, or computed. */
function insertValue([name, column]: Sourced<Exclude<Origin, "default">>): string {
  switch (column.from) {
    case "source":
    case "copy":
      return column.type === "text[]" ? `array(select jsonb_array_elements_text(v.${quoted(name)}))` : `v.${quoted(name)}`;
    case "body":
      // Source i's bodies are entries i * n + 1 … i * n + n of the one array (SQL arrays count from 1).
      return `p.bodies[v.i * ${BODY_COLUMNS.length} + ${BODY_COLUMNS.findIndex(([body]) => body === name) + 1}]`;
    case "statement":
      return column.sql;
  }
}

/**
 * The store statement's column lists, generated from {@link MESSAGE_COLUMN_SOURCES} once, when
 * the module loads. Each is SQL text to splice into the statement with `sql.raw`.
 */
export const STORE_SQL = {
  /** The message fields of the `content` input, as `jsonb_to_recordset` defines them. */
  sourceFields: recordsetFields(SOURCE_COLUMNS),
  /** The message fields of the `copies` input, likewise. */
  copyFields: recordsetFields(COPY_COLUMNS),
  /** The copies' message fields as the input rows take them from `copies` aliased `k`. */
  copySelect: COPY_COLUMNS.map(([name]) => `k.${quoted(name)}`).join(", "),
  /** The columns the insert writes, and their values in the same order. */
  insertColumns: WRITTEN_COLUMNS.map(([name]) => quoted(name)).join(", "),
  insertValues: WRITTEN_COLUMNS.map(insertValue).join(", "),
};

/** A group's fields as the statement's jsonb input carries them: a Date as ISO text, made once here rather than by its `toJSON` in JSON.stringify (twice as slow). */
const encoders = <From>(columns: [name: string, column: { type: SqlType; value: (from: From) => unknown }][]) =>
  columns.map(([name, { type, value }]): [string, (from: From) => unknown] => [name, type === "timestamptz" ? (from) => (value(from) as Date | null)?.toISOString() ?? null : value]);

const SOURCE_ENCODERS = encoders(SOURCE_COLUMNS);
const COPY_ENCODERS = encoders(COPY_COLUMNS);

/** Adds the message fields of source `input` to its record in the statement's `content` input. */
export function addSourceFields(record: Record<string, unknown>, input: StoreMessageInput): void {
  for (const [name, encode] of SOURCE_ENCODERS) record[name] = encode(input);
}

/** Adds the message fields of `copy` to its record in the statement's `copies` input. */
export function addCopyFields(record: Record<string, unknown>, copy: MessageCopy): void {
  for (const [name, encode] of COPY_ENCODERS) record[name] = encode(copy);
}

/** Every source's bodies in one array, source by source in column order: the statement's `bodies` parameter. */
export function bodiesOf(inputs: readonly StoreMessageInput[]): (string | null)[] {
  return inputs.flatMap((input) => BODY_COLUMNS.map(([, column]) => column.value(input.content) as string | null));
}
