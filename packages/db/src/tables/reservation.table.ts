/** Recipients RCPT accepted for a metered project, per transaction (see the migration that creates it). */
export interface IngestReservationsTable {
  transaction_id: string;
  project_id: string;
  organisation_id: string;
  recipients: number;
  expires_at: Date;
}
