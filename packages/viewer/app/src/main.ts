import "./style.css";
import { Api, ApiError, type Inbox, type InboxList, type MessageList } from "./api";
import { byId, h, replace } from "./dom";
import { MessagePane } from "./message-pane";
import { type Arrival, InboxStream } from "./stream";

/** The key lives in this tab only: sessionStorage, never a cookie, never sent but as a bearer header. */
const KEY_STORAGE = "mailstop.api_key";

interface Row {
  id: string;
  subject: string | null;
  from: { address: string; name: string | null } | null;
  received_at: string;
}

const keyForm = byId<HTMLFormElement>("key-form");
const keyHelp = byId("key-help");
const session = byId("session");
const status = byId("status");
const app = byId("app");
const inboxList = byId<HTMLUListElement>("inbox-list");
const moreInboxes = byId<HTMLButtonElement>("more-inboxes");
const messageList = byId<HTMLUListElement>("message-list");
const inboxTitle = byId("inbox-title");
const streamState = byId("stream-state");

let api: Api | null = null;
let stream: InboxStream | null = null;
let currentInbox: Inbox | null = null;
let rows: Row[] = [];
let selectedId: string | null = null;
let inboxCursor: { query: string; cursor: string } | null = null;
const pane = new MessagePane(byId("message-pane"), {
  onDeleted: (id) => {
    rows = rows.filter((row) => row.id !== id);
    selectedId = null;
    renderRows();
    say("Message deleted.");
  },
  onError: (error) => fail(error),
});

function say(text: string): void {
  status.textContent = text;
  status.classList.remove("error");
}

function fail(error: unknown): void {
  status.textContent = error instanceof ApiError ? `${error.message} (${error.code})` : "Something went wrong.";
  status.classList.add("error");
  if (error instanceof ApiError && error.status === 401) signOut();
}

async function signIn(key: string): Promise<void> {
  const candidate = new Api(key);
  const context = await candidate.json<{ project: { id: string; key: string } }>("GET", "/v1/auth/check");
  sessionStorage.setItem(KEY_STORAGE, key);
  api = candidate;
  keyForm.hidden = true;
  keyHelp.hidden = true;
  session.hidden = false;
  byId("project").textContent = `project ${context.project.key} (${context.project.id})`;
  app.hidden = false;
  say("");
  await searchInboxes("");
}

function signOut(): void {
  sessionStorage.removeItem(KEY_STORAGE);
  stream?.stop();
  stream = null;
  api = null;
  currentInbox = null;
  rows = [];
  app.hidden = true;
  session.hidden = true;
  keyForm.hidden = false;
  keyHelp.hidden = false;
  keyForm.reset();
}

/** A query with `@` is an address (one inbox); anything else is a tag prefix. */
/**
 * The inbox at an address; for a recipient the application mailed (no inbox of its own), the
 * capture inbox the API names in its 404 (`details.capture_inbox`), saying so.
 */
async function inboxesAt(address: string): Promise<Inbox[]> {
  try {
    return [await api!.json<Inbox>("GET", `/v1/inboxes/${encodeURIComponent(address)}`)];
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    const capture = error.details.capture_inbox;
    if (typeof capture !== "string") return [];
    try {
      const inbox = await api!.json<Inbox>("GET", `/v1/inboxes/${encodeURIComponent(capture)}`);
      say(`Mail the capture relay took for ${address} is filed in ${capture}.`);
      return [inbox];
    } catch (missing) {
      if (!(missing instanceof ApiError && missing.status === 404)) throw missing;
      say(`Nothing captured for ${address} yet: its mail will be filed in ${capture}.`);
      return [];
    }
  }
}

async function searchInboxes(query: string, cursor?: string): Promise<void> {
  if (api === null) return;
  let page: Inbox[];
  let next: string | null = null;
  if (query.includes("@")) {
    page = await inboxesAt(query);
  } else {
    const list = await api.json<InboxList>("GET", "/v1/inboxes", { tag_prefix: query || undefined, limit: 50, cursor });
    page = list.data;
    next = list.next_cursor;
  }
  if (cursor === undefined) inboxList.replaceChildren();
  for (const inbox of page) {
    inboxList.append(
      h(
        "li",
        {},
        h(
          "button",
          { type: "button", class: "inbox", "data-inbox": inbox.id, onclick: () => void openInbox(inbox).catch(fail) },
          h("span", { class: "address" }, inbox.address),
          h("span", { class: "count" }, inbox.message_count),
        ),
      ),
    );
  }
  if (cursor === undefined && page.length === 0) inboxList.append(h("li", { class: "empty" }, query ? "No inbox matches." : "No inboxes yet."));
  inboxCursor = next === null ? null : { query, cursor: next };
  moreInboxes.hidden = next === null;
}

async function openInbox(inbox: Inbox): Promise<void> {
  if (api === null) return;
  stream?.stop();
  currentInbox = inbox;
  rows = [];
  selectedId = null;
  pane.clear();
  for (const button of inboxList.querySelectorAll<HTMLElement>("button.inbox")) button.classList.toggle("selected", button.dataset.inbox === inbox.id);
  inboxTitle.textContent = inbox.address;
  renderRows();
  // The stream first, then the list: a message arriving in between is in one or both, and
  // rows are merged by id, so none is missed.
  const live = new InboxStream(api, inbox.id, (arrival) => addArrival(inbox.id, arrival), (state) => {
    streamState.textContent = state === "live" ? "live" : "reconnecting…";
    streamState.dataset.state = state;
  });
  stream = live;
  await live.start();
  const list = await api.json<MessageList>("GET", "/v1/messages", { inbox: inbox.id, limit: 100 });
  if (currentInbox !== inbox) return;
  merge(list.data.map((message) => ({ id: message.id, subject: message.subject, from: message.from, received_at: message.received_at })));
}

function addArrival(inboxId: string, arrival: Arrival): void {
  if (currentInbox?.id !== inboxId) return;
  merge([{ id: arrival.id, subject: arrival.subject, from: arrival.from, received_at: arrival.received_at }]);
}

function merge(incoming: Row[]): void {
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const row of incoming) byId.set(row.id, row);
  rows = [...byId.values()].sort((a, b) => b.received_at.localeCompare(a.received_at) || b.id.localeCompare(a.id));
  renderRows();
}

function renderRows(): void {
  replace(
    messageList,
    ...rows.map((row) =>
      h(
        "li",
        {},
        h(
          "button",
          { type: "button", class: `message${row.id === selectedId ? " selected" : ""}`, "data-message": row.id, "aria-current": row.id === selectedId ? "true" : undefined, onclick: () => select(row.id) },
          h("span", { class: "subject" }, row.subject ?? "(no subject)"),
          h("span", { class: "from" }, row.from === null ? "" : row.from.name ? `${row.from.name} <${row.from.address}>` : row.from.address),
          h("time", { datetime: row.received_at }, new Date(row.received_at).toLocaleString()),
        ),
      ),
    ),
  );
  if (rows.length === 0 && currentInbox !== null) messageList.append(h("li", { class: "empty" }, "No messages yet: new mail appears here as it arrives."));
}

function select(id: string): void {
  if (api === null) return;
  selectedId = id;
  renderRows();
  messageList.querySelector<HTMLElement>(`[data-message="${CSS.escape(id)}"]`)?.focus();
  void pane.show(api, id);
}

/** j / ArrowDown: next message; k / ArrowUp: previous (outside text fields). */
function onKey(event: KeyboardEvent): void {
  const target = event.target as HTMLElement | null;
  if (target !== null && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
  if (event.altKey || event.ctrlKey || event.metaKey || rows.length === 0) return;
  const step = event.key === "j" || event.key === "ArrowDown" ? 1 : event.key === "k" || event.key === "ArrowUp" ? -1 : 0;
  if (step === 0) return;
  event.preventDefault();
  const index = rows.findIndex((row) => row.id === selectedId);
  const next = rows[index === -1 ? 0 : Math.min(rows.length - 1, Math.max(0, index + step))];
  if (next !== undefined && next.id !== selectedId) select(next.id);
}

keyForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const key = String(new FormData(keyForm).get("api_key") ?? "").trim();
  if (key !== "") signIn(key).catch(fail);
});
byId("sign-out").addEventListener("click", signOut);
byId<HTMLFormElement>("inbox-search").addEventListener("submit", (event) => {
  event.preventDefault();
  const query = String(new FormData(event.target as HTMLFormElement).get("q") ?? "").trim();
  searchInboxes(query).catch(fail);
});
moreInboxes.addEventListener("click", () => {
  if (inboxCursor !== null) searchInboxes(inboxCursor.query, inboxCursor.cursor).catch(fail);
});
document.addEventListener("keydown", onKey);

const saved = sessionStorage.getItem(KEY_STORAGE);
if (saved !== null) signIn(saved).catch(fail);
