import { type AcceptedTransaction, type Db, GroupCommit, recordAcceptedTransactions } from "@mailstop/db";

/**
 * The edge's writer of the accept ledger: the durable record that decides a transaction's
 * `250`. Transactions whose DATA ends while a write is in flight are recorded together in the
 * next one (GroupCommit), so a burst pays one commit per batch, not one per message.
 */
export class AcceptLedger {
  private readonly commits: GroupCommit<AcceptedTransaction, void>;

  constructor(db: Db) {
    this.commits = new GroupCommit<AcceptedTransaction, void>(async (transactions) => {
      await recordAcceptedTransactions(db, transactions);
      return transactions.map(() => undefined);
    });
  }

  /** Resolves once the transaction's row is committed. */
  record(transaction: AcceptedTransaction): Promise<void> {
    return this.commits.submit(transaction);
  }
}
