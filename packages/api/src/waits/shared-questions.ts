/**
 * One question asked once. Every wait blocked on an inbox hears each arrival at the same
 * moment, and waits with the same match ask the database the same thing about it; while that
 * answer is in flight, later askers share it. The arrival is already committed when it is
 * announced, so they would all read the same rows: 10,000 waits on 100 inboxes cost one query
 * per inbox and distinct match instead of 10,000. Nothing is kept once the answer is in.
 */
export class SharedQuestions<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  ask(key: string, query: () => Promise<T>): Promise<T> {
    let answer = this.inFlight.get(key);
    if (answer === undefined) {
      answer = query().finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, answer);
    }
    return answer;
  }
}
