/**
 * Object keys, one prefix per project and SMTP transaction: the raw source and everything
 * derived from it live together, so a retried parse overwrites the same keys (idempotent) and
 * the whole transaction is removed by one prefix delete when its last message row is gone.
 *
 *   projects/<project id>/tx/<transaction id>/raw.eml
 *   projects/<project id>/tx/<transaction id>/text.txt | html.html | headers.txt
 *   projects/<project id>/tx/<transaction id>/attachments/<position>
 */
export const blobKeys = {
  transaction: (projectId: string, transactionId: string) => `projects/${projectId}/tx/${transactionId}/`,
  raw: (projectId: string, transactionId: string) => `${blobKeys.transaction(projectId, transactionId)}raw.eml`,
  part: (projectId: string, transactionId: string, part: "text" | "html" | "headers") =>
    `${blobKeys.transaction(projectId, transactionId)}${part === "html" ? "html.html" : `${part}.txt`}`,
  attachment: (projectId: string, transactionId: string, position: number) => `${blobKeys.transaction(projectId, transactionId)}attachments/${position}`,
  project: (projectId: string) => `projects/${projectId}/`,
};

