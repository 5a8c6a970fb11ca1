import type { Organisation, Project } from "@mailstop/db";

/** An organisation as the admin API shows it (create and update answer the same view). */
export function organisationView(organisation: Organisation) {
  return {
    id: organisation.id,
    name: organisation.name,
    suspended: organisation.suspended,
    organisation_limits: organisation.organisationLimits,
    limits: { monthly_messages: organisation.limits.monthlyMessages, storage_bytes: organisation.limits.storageBytes },
  };
}

/** A project with every limit the operator sets (null: none, or the server's default rate). */
export function projectWithLimitsView(project: Project) {
  return {
    id: project.id,
    key: project.key,
    organisation_id: project.organisationId,
    region: project.region,
    limits: {
      max_concurrent_waits: project.limits.maxConcurrentWaits,
      ingest_ceiling: project.limits.ingestCeiling,
      monthly_messages: project.limits.monthlyMessages,
      rate_limit_read: project.limits.rateLimitRead,
      rate_limit_write: project.limits.rateLimitWrite,
    },
  };
}
