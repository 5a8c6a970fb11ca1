/** What a follower needs: a read of what came after a cursor, and where each row goes. */
export interface FollowerIo<Row> {
  /** Rows after `cursor`, oldest first, at most one page. */
  read(cursor: string): Promise<Row[]>;
  cursorOf(row: Row): string;
  /** Delivers one row, resolving when the next may follow; false when the stream has ended. */
  emit(row: Row): Promise<boolean>;
  /** A read failed: the stream ends. */
  fail(error: unknown): void;
  pageSize: number;
}

/**
 * Keeps a stream's cursor and reads what came after it each time it is poked (once per
 * arrival, and once on resume). Reads never overlap: pokes that land during a read (or while
 * a slow client holds up its frames) cause one more read after it, so a burst of arrivals
 * costs at most one query each and nothing is skipped. Because cursors follow commit order within an inbox, "everything after the last
 * row sent" is exactly what the client has not seen: no gap, no duplicate.
 */
export class StreamFollower<Row> {
  private reading = false;
  private pokedWhileReading = false;
  private stopped = false;

  constructor(
    private cursor: string,
    private readonly io: FollowerIo<Row>,
  ) {}

  poke(): void {
    if (this.stopped) return;
    if (this.reading) {
      this.pokedWhileReading = true;
      return;
    }
    void this.readAll();
  }

  stop(): void {
    this.stopped = true;
  }

  private async readAll(): Promise<void> {
    this.reading = true;
    try {
      do {
        this.pokedWhileReading = false;
        let rows: Row[];
        do {
          rows = await this.io.read(this.cursor);
          for (const row of rows) {
            if (this.stopped || !(await this.io.emit(row))) return this.stop();
            this.cursor = this.io.cursorOf(row);
          }
        } while (rows.length === this.io.pageSize);
      } while (this.pokedWhileReading && !this.stopped);
    } catch (error) {
      if (!this.stopped) this.io.fail(error);
      this.stop();
    } finally {
      this.reading = false;
    }
  }
}
