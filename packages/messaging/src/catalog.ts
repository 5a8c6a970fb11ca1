import Ajv, { type JSONSchemaType, type ValidateFunction } from "ajv";

/**
 * The one catalog of background jobs and pub/sub channels (trigger.dev's worker catalog, Novu's
 * queue enum): every name, its payload schema and its options live here and nowhere else.
 * Payloads are checked when enqueued and again when consumed.
 */

/** One project's share of an SMTP transaction: its copy of the raw source and its recipients. */
export interface Delivery {
  project_id: string;
  project_key: string;
  raw_key: string;
  /** One stored copy per entry. `inbox_id` null: a capture recipient whose inbox the parser ensures. */
  recipients: { address: string; inbox_id: string | null; sim: "delay" | "complaint" | null }[];
}

/**
 * One accepted SMTP transaction. One job per transaction, keyed by its id, so there is never a
 * half-queued transaction. The job is the fast path to the parser, not what the 250 rests on:
 * the raw source and the accept ledger's row decide that, and the reconciler requeues the job
 * from the row when the enqueue was lost (docs/smtp.md "What a `250` means").
 */
export interface ParseMessageJob {
  /** The idempotency key of everything the transaction produces. */
  transaction_id: string;
  kind: "received" | "captured";
  size: number;
  received_at: string;
  envelope_from: string | null;
  /**
   * The SMTP client's IP address and HELO name, for the parser's SPF and DMARC checks. Absent
   * from jobs queued before the edge recorded them (their checks say what could not be known).
   */
  client_address?: string;
  client_helo?: string;
  deliveries: Delivery[];
  /**
   * The raw source itself, base64, when it is small enough to ride in the job
   * (INLINE_RAW_MAX_BYTES): the parser then does not read back what the edge has just stored.
   * Every delivery's raw object holds the same bytes.
   */
  raw?: string;
}

/**
 * The largest raw source carried inside its parse job; a larger one is read from the object
 * store. Bounded for Redis's sake: a waiting job holds it until parsed, and a job that failed
 * for good keeps it in the failed set.
 */
export const INLINE_RAW_MAX_BYTES = 65_536;

/** Reveals a `sim.delay` message when its delay is over: gives it a stream cursor, then announces it. */
export interface PublishArrivalJob {
  inbox_id: string;
  message_id: string;
}

/** Deletes tombstoned and expired messages and the objects no row uses; scheduled, no payload. */
export type ReapJob = Record<string, never>;

/** Queues again the parse jobs of accepted transactions still open after the grace period; scheduled, no payload. */
export type ReconcileJob = Record<string, never>;

/** Deletes raw objects that no accepted transaction or message knows, once old enough; scheduled, no payload. */
export type SweepOrphansJob = Record<string, never>;

/**
 * Attempts one webhook delivery (an event to one endpoint) that the outbox relay found due.
 * The outbox row, not the job, is the record: a lost job is queued again while the row is due.
 */
export interface DeliverWebhookJob {
  event_id: string;
  webhook_id: string;
}

export interface JobPayloads {
  "parse-message": ParseMessageJob;
  "publish-arrival": PublishArrivalJob;
  reap: ReapJob;
  reconcile: ReconcileJob;
  "sweep-orphans": SweepOrphansJob;
  "deliver-webhook": DeliverWebhookJob;
}
export type JobName = keyof JobPayloads;

// Nullable members are typed constants: ajv's types refuse `nullable: true` written in place
// inside `properties` (ajv-validator/ajv#2283), and accept it declared on its own.
const stringOrNull: JSONSchemaType<string | null> = { type: "string", nullable: true };
const simOrNull: JSONSchemaType<"delay" | "complaint" | null> = { type: "string", nullable: true, enum: ["delay", "complaint", null] };
const noPayload: JSONSchemaType<Record<string, never>> = { type: "object", additionalProperties: false, properties: {}, required: [] };

/**
 * Each job's payload schema, typed by its payload: a field added to a payload type and not to
 * its schema (or the other way round) does not compile.
 */
export const SCHEMAS: { [N in JobName]: JSONSchemaType<JobPayloads[N]> } = {
  "parse-message": {
    type: "object",
    additionalProperties: false,
    required: ["transaction_id", "kind", "size", "received_at", "envelope_from", "deliveries"],
    // ajv's types want an optional property declared nullable, which would let `raw: null`
    // through: `raw` is a plain string schema reached by reference instead.
    $defs: {
      // No maxLength: ajv counts a string's code points to check it, a walk over every byte of
      // the source on each enqueue and consume; the edge alone decides what rides inline.
      raw: { type: "string" },
      text: { type: "string" },
    },
    properties: {
      transaction_id: { type: "string", minLength: 1 },
      kind: { type: "string", enum: ["received", "captured"] },
      size: { type: "integer", minimum: 0 },
      received_at: { type: "string" },
      envelope_from: stringOrNull,
      client_address: { $ref: "#/$defs/text" },
      client_helo: { $ref: "#/$defs/text" },
      raw: { $ref: "#/$defs/raw" },
      deliveries: {
        type: "array",
        minItems: 1,
        items: {
          type: "object",
          additionalProperties: false,
          required: ["project_id", "project_key", "raw_key", "recipients"],
          properties: {
            project_id: { type: "string", minLength: 1 },
            project_key: { type: "string", minLength: 1 },
            raw_key: { type: "string", minLength: 1 },
            recipients: {
              type: "array",
              minItems: 1,
              items: {
                type: "object",
                additionalProperties: false,
                required: ["address", "inbox_id", "sim"],
                properties: {
                  address: { type: "string", minLength: 3 },
                  inbox_id: stringOrNull,
                  sim: simOrNull,
                },
              },
            },
          },
        },
      },
    },
  },
  "publish-arrival": {
    type: "object",
    additionalProperties: false,
    required: ["inbox_id", "message_id"],
    properties: { inbox_id: { type: "string" }, message_id: { type: "string" } },
  },
  reap: noPayload,
  reconcile: noPayload,
  "sweep-orphans": noPayload,
  "deliver-webhook": {
    type: "object",
    additionalProperties: false,
    required: ["event_id", "webhook_id"],
    properties: { event_id: { type: "string", minLength: 1 }, webhook_id: { type: "string", minLength: 1 } },
  },
};

/** Which queue carries each job, and how it retries. A job that keeps failing is kept, never dropped. */
export const JOB_OPTIONS: Record<JobName, { queue: string; attempts: number; backoffMs: number; keepCompleted?: false }> = {
  // A completed parse job is forgotten at once: its payload holds the envelope's addresses and
  // often the raw mail itself, which an erasure must be able to reach (the ledger and the
  // stored rows are the record; nothing reads a completed parse job).
  "parse-message": { queue: "ingest", attempts: 15, backoffMs: 250, keepCompleted: false },
  "publish-arrival": { queue: "ingest", attempts: 10, backoffMs: 250 },
  // Its own queue, so a long reap never delays parsing.
  reap: { queue: "maintenance", attempts: 3, backoffMs: 1000 },
  reconcile: { queue: "maintenance", attempts: 3, backoffMs: 1000 },
  "sweep-orphans": { queue: "maintenance", attempts: 3, backoffMs: 1000 },
  // Its own queue: a slow receiver (15 s an attempt) never delays parsing. The job's own retries
  // cover engine failures only; a receiver's failures are rescheduled in the outbox.
  "deliver-webhook": { queue: "webhooks", attempts: 5, backoffMs: 1000 },
};

// No check of each schema against JSON Schema's meta-schema when it compiles: the first such
// check compiles the meta-schema itself, ~70 ms of every process's start (issue 34) for schemas
// written here once; catalog.test.ts makes it.
const ajv = new Ajv({ allErrors: true, validateSchema: false });

/**
 * `schema`'s validator, compiled on its first use rather than when this module loads: a
 * process uses a few of them.
 */
function compiledOnUse<T = unknown>(schema: object): () => ValidateFunction<T> {
  let validate: ValidateFunction<T> | undefined;
  return () => (validate ??= ajv.compile<T>(schema));
}

const validators = Object.fromEntries(Object.entries(SCHEMAS).map(([name, schema]) => [name, compiledOnUse(schema)])) as Record<JobName, () => ValidateFunction>;

/** Throws when `payload` is not a valid payload of job `name`. */
export function assertJobPayload<N extends JobName>(name: N, payload: unknown): asserts payload is JobPayloads[N] {
  const validate = validators[name]();
  if (!validate(payload)) throw new Error(`invalid ${name} payload: ${ajv.errorsText(validate.errors)}`);
}

/**
 * Pub/sub channels: one per inbox, carrying its arrivals; and one for the whole installation,
 * carrying the credential changes every process's API-key cache must hear.
 */
export const CHANNELS = {
  inboxArrivals: (inboxId: string) => `inbox:${inboxId}:arrivals`,
  credentialChanges: "credentials:changed",
};

/**
 * A committed change to something authentication reads with an API key: a key revoked, a
 * project's limits changed, an organisation suspended, reinstated or its limits changed. Every
 * process forgets the keys it cached under what changed (docs/decisions.md "The API-key cache").
 */
export interface CredentialChange {
  scope: "api_key" | "project" | "organisation";
  /** The id of the key, project or organisation. */
  id: string;
}

/** Like the arrival event's, it allows other fields, for a publisher newer than its subscribers. */
export const credentialChangeSchema: JSONSchemaType<CredentialChange> = {
  type: "object",
  required: ["scope", "id"],
  properties: {
    scope: { type: "string", enum: ["api_key", "project", "organisation"] },
    id: { type: "string", minLength: 1 },
  },
};

/** What an arrival message says: enough to fetch the message with one query. */
export interface ArrivalEvent {
  inbox_id: string;
  message_id: string;
  /** The message's stream cursor (`stream_seq`), as a decimal string. */
  seq: string;
}

/**
 * An arrival event's schema. It allows other fields: a publisher newer than its subscribers (a
 * fleet half-way through a deploy) may add one.
 */
export const arrivalEventSchema: JSONSchemaType<ArrivalEvent> = {
  type: "object",
  required: ["inbox_id", "message_id", "seq"],
  properties: {
    inbox_id: { type: "string", minLength: 1 },
    message_id: { type: "string", minLength: 1 },
    seq: { type: "string", pattern: "^[0-9]+$" },
  },
};
const arrivalEventValidator = compiledOnUse<ArrivalEvent>(arrivalEventSchema);

/**
 * `value` as an ArrivalEvent, or why it is not one. Buses check what they receive with it, so
 * a malformed event (from another process, or a bug) reaches no subscriber.
 */
export function checkArrivalEvent(value: unknown): { event: ArrivalEvent; problem: null } | { event: null; problem: string } {
  const validateArrivalEvent = arrivalEventValidator();
  return validateArrivalEvent(value) ? { event: value, problem: null } : { event: null, problem: ajv.errorsText(validateArrivalEvent.errors) };
}

const credentialChangeValidator = compiledOnUse<CredentialChange>(credentialChangeSchema);

/** `value` as a CredentialChange, or why it is not one; buses check what they receive with it. */
export function checkCredentialChange(value: unknown): { change: CredentialChange; problem: null } | { change: null; problem: string } {
  const validateCredentialChange = credentialChangeValidator();
  return validateCredentialChange(value)
    ? { change: value, problem: null }
    : { change: null, problem: ajv.errorsText(validateCredentialChange.errors) };
}

/** Every queue of JOB_OPTIONS, in the order first named there. */
export const QUEUE_NAMES: readonly string[] = [...new Set(Object.values(JOB_OPTIONS).map((options) => options.queue))];

/** The jobs that run on `queue`. */
export function jobNamesOf(queue: string): JobName[] {
  return (Object.keys(JOB_OPTIONS) as JobName[]).filter((name) => JOB_OPTIONS[name].queue === queue);
}
