import { type Db, type MessageFilter, type MessageRecord, findReadableMessage, listReadableMessages } from "@mailstop/db";
import { EncodedJson } from "@mailstop/http";
import { type MessageView, type ViewOptions, toMessageView } from "../messages/message.view";
import { SharedQuestions } from "./shared-questions";

/**
 * What the blocking waits of one waiter ask about each arrival, each asked once for all of
 * them: whether it matches, whether it is readable, and its encoded view. One per waiter (its
 * module builds it with the routes), so two waiters in one process share nothing.
 */
export class ArrivalChecks {
  private readonly matchingChecks = new SharedQuestions<MessageRecord | null>();
  private readonly readableChecks = new SharedQuestions<MessageRecord | null>();
  /**
   * The views of each arrival, by options. The record is shared by the waits it matches (see
   * SharedQuestions), so its views live exactly as long as it does; html, headers or raw
   * slices are read from the object store once, and the view is stringified and encoded once,
   * not once per wait (10,000 waits woken together spent more on `res.json` than on anything
   * of theirs).
   */
  private readonly viewsOf = new WeakMap<MessageRecord, Map<string, Promise<EncodedJson<MessageView>>>>();

  constructor(private readonly db: Db) {}

  /** The arrival if it satisfies the wait's filter, else null. */
  matching(projectId: string, filter: MessageFilter, messageId: string): Promise<MessageRecord | null> {
    return this.matchingChecks.ask(JSON.stringify([projectId, messageId, filter]), async () => {
      const [hit] = await listReadableMessages(this.db, projectId, { ...filter, id: messageId }, { beforeSeq: null, limit: 1 });
      return hit ?? null;
    });
  }

  /** The arrival whatever its content, when it is readable (to explain a miss). */
  readable(projectId: string, messageId: string): Promise<MessageRecord | null> {
    return this.readableChecks.ask(JSON.stringify([projectId, messageId]), () => findReadableMessage(this.db, projectId, messageId));
  }

  /** The view of an arrival, rendered and encoded once for every wait it matches with the same options: each of them sends the same bytes. */
  view(record: MessageRecord, options: ViewOptions): Promise<EncodedJson<MessageView>> {
    let views = this.viewsOf.get(record);
    if (views === undefined) {
      views = new Map();
      this.viewsOf.set(record, views);
    }
    const key = JSON.stringify([[...options.formats].sort(), options.previewChars, options.origin]);
    let view = views.get(key);
    if (view === undefined) {
      const rendering = toMessageView(record, options).then((rendered) => EncodedJson.of(rendered));
      view = rendering;
      views.set(key, rendering);
      // A failed read is not kept: the next wait tries again.
      const forget = views;
      rendering.catch(() => forget.delete(key));
    }
    return view;
  }
}
