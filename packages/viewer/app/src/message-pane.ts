import type { Api, AttachmentLink, AttachmentRef, BodyFormat, MessageChecks, MessageView } from "./api";
import { checksView } from "./checks";
import { h, replace } from "./dom";
import { mailDocument } from "./mail-frame";

type Tab = BodyFormat | "checks";
const TAB_LABELS: Record<Tab, string> = { text: "Text", html: "HTML", headers: "Headers", raw: "Raw source", checks: "Checks" };

interface Handlers {
  onDeleted: (id: string) => void;
  onError: (error: unknown) => void;
}

function addresses(list: ReadonlyArray<{ address: string; name: string | null }> | null): string {
  return (list ?? []).map((entry) => (entry.name ? `${entry.name} <${entry.address}>` : entry.address)).join(", ");
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Saves bytes under a name without leaving the page (a same-origin blob: URL). */
function save(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * One message: its headers, codes and links (with copy buttons), attachments, and its parts and
 * checks in tabs. Every value from the message is written as text (see dom.ts); the HTML part only ever
 * goes into the sandboxed frame (mail-frame.ts).
 */
export class MessagePane {
  private token = 0;
  /** Messages whose remote images the user allowed, for as long as the page is open. */
  private readonly imagesAllowed = new Set<string>();

  constructor(
    private readonly root: HTMLElement,
    private readonly handlers: Handlers,
  ) {}

  clear(): void {
    this.token += 1;
    replace(this.root, h("p", { class: "empty" }, "Select a message (j / k or the arrow keys move through the list)."));
  }

  async show(api: Api, id: string): Promise<void> {
    const token = ++this.token;
    let view: MessageView;
    try {
      view = await api.json<MessageView>("GET", `/v1/messages/${encodeURIComponent(id)}`, { format: "html,headers,raw", preview_chars: 1 });
    } catch (error) {
      if (token === this.token) this.handlers.onError(error);
      return;
    }
    if (token !== this.token) return;
    const tabs = (["text", "html", "headers", "raw", "checks"] as const).filter((tab) => tab === "text" || tab === "checks" || view.body[tab] !== undefined);
    const body = h("div", { class: "part" });
    const tabBar = h("div", { class: "tabs", role: "tablist" });
    const open = (tab: Tab) => {
      for (const button of tabBar.querySelectorAll<HTMLElement>("button")) button.setAttribute("aria-selected", String(button.dataset.tab === tab));
      void this.showPart(api, view, tab, body, token);
    };
    for (const tab of tabs) tabBar.append(h("button", { type: "button", role: "tab", "data-tab": tab, onclick: () => open(tab) }, TAB_LABELS[tab]));

    replace(
      this.root,
      h(
        "header",
        { class: "message-head" },
        h("h2", { class: "subject" }, view.subject ?? "(no subject)"),
        h(
          "dl",
          {},
          h("dt", {}, "From"),
          h("dd", { class: "from" }, addresses(view.from === null ? [] : [view.from])),
          h("dt", {}, "To"),
          h("dd", {}, addresses(view.to)),
          view.cc.length > 0 && h("dt", {}, "Cc"),
          view.cc.length > 0 && h("dd", {}, addresses(view.cc)),
          h("dt", {}, "Received"),
          h("dd", {}, h("time", { datetime: view.received_at }, new Date(view.received_at).toLocaleString())),
        ),
        deleteButton(() => this.remove(api, view.id)),
      ),
      this.extracted(view),
      this.attachments(api, view),
      tabBar,
      body,
    );
    open(view.body.html !== undefined ? "html" : "text");
  }

  private extracted(view: MessageView): HTMLElement | null {
    if (view.codes.length === 0 && view.links.length === 0) return null;
    return h(
      "section",
      { class: "extracted" },
      view.codes.length > 0 && h("h3", {}, "Codes"),
      view.codes.length > 0 && h("ul", { class: "codes" }, ...view.codes.map((code) => h("li", {}, h("code", {}, code), copyButton(code, "Copy code")))),
      view.links.length > 0 && h("h3", {}, "Links"),
      view.links.length > 0 &&
        h(
          "ul",
          { class: "links" },
          ...view.links.map((link) =>
            h(
              "li",
              {},
              h("span", { class: "kind" }, link.kind),
              // Only web links are clickable; anything else is shown, never followed.
              /^https?:\/\//i.test(link.url) ? h("a", { href: link.url, target: "_blank", rel: "noopener noreferrer" }, link.url) : h("span", {}, link.url),
              copyButton(link.url, "Copy link"),
            ),
          ),
        ),
    );
  }

  private attachments(api: Api, view: MessageView): HTMLElement | null {
    if (view.attachments.length === 0) return null;
    const download = async (attachment: AttachmentRef) => {
      try {
        // The signed URL serves the bytes as a download (Content-Disposition: attachment).
        const link = await api.json<AttachmentLink>("GET", `/v1/messages/${encodeURIComponent(view.id)}/attachments/${encodeURIComponent(attachment.id)}`, { redirect: false });
        const anchor = h("a", { href: link.url, hidden: true });
        document.body.append(anchor);
        anchor.click();
        anchor.remove();
      } catch (error) {
        this.handlers.onError(error);
      }
    };
    return h(
      "section",
      { class: "attachments" },
      h("h3", {}, "Attachments"),
      h(
        "ul",
        {},
        ...view.attachments.map((attachment) =>
          h(
            "li",
            {},
            h("span", { class: "filename" }, attachment.filename ?? "(unnamed)"),
            h("span", { class: "meta" }, `${attachment.content_type}, ${size(attachment.size)}`),
            h("button", { type: "button", "data-attachment": attachment.id, onclick: () => void download(attachment) }, "Download"),
          ),
        ),
      ),
    );
  }

  private async showPart(api: Api, view: MessageView, tab: Tab, into: HTMLElement, token: number): Promise<void> {
    replace(into, h("p", { class: "loading" }, "Loading…"));
    if (tab === "checks") return this.showChecks(api, view.id, into, token);
    let text: string;
    try {
      text = await api.text(`/v1/messages/${encodeURIComponent(view.id)}/body`, { format: tab satisfies BodyFormat });
    } catch (error) {
      if (token === this.token) this.handlers.onError(error);
      return;
    }
    if (token !== this.token) return;
    if (tab === "html") return this.showHtml(view.id, text, into);
    const extra = tab === "raw" ? h("button", { type: "button", onclick: () => save(new Blob([text], { type: "message/rfc822" }), `${view.id}.eml`) }, "Download .eml") : null;
    replace(into, extra, h("pre", { class: `body-${tab}` }, text));
  }

  private async showChecks(api: Api, id: string, into: HTMLElement, token: number): Promise<void> {
    let checks: MessageChecks;
    try {
      checks = await api.json<MessageChecks>("GET", `/v1/messages/${encodeURIComponent(id)}/checks`);
    } catch (error) {
      if (token === this.token) this.handlers.onError(error);
      return;
    }
    if (token === this.token) replace(into, checksView(api, checks));
  }

  private showHtml(id: string, html: string, into: HTMLElement): void {
    const remoteImages = this.imagesAllowed.has(id);
    const allow = () => {
      this.imagesAllowed.add(id);
      this.showHtml(id, html, into);
    };
    const { srcdoc, remoteImageCount } = mailDocument(html, remoteImages);
    // No allow-scripts, no allow-same-origin: the frame is a unique origin that runs nothing.
    // Popups only so that links open in a new tab, outside the sandbox.
    const frame = h("iframe", { class: "html-frame", title: "HTML part (sanitised, sandboxed)", sandbox: "allow-popups allow-popups-to-escape-sandbox", referrerpolicy: "no-referrer" });
    frame.srcdoc = srcdoc;
    const notice =
      remoteImageCount > 0 && !remoteImages
        ? h("p", { class: "notice" }, `Remote images are blocked (${remoteImageCount}). `, h("button", { type: "button", "data-action": "allow-images", onclick: allow }, "Load remote images"))
        : null;
    replace(into, notice, frame);
  }

  private async remove(api: Api, id: string): Promise<void> {
    try {
      await api.json("DELETE", `/v1/messages/${encodeURIComponent(id)}`);
      this.clear();
      this.handlers.onDeleted(id);
    } catch (error) {
      this.handlers.onError(error);
    }
  }
}

function copyButton(value: string, label: string): HTMLButtonElement {
  const button = h("button", { type: "button", class: "copy", "aria-label": label }, "Copy");
  button.addEventListener("click", () => {
    navigator.clipboard.writeText(value).then(
      () => (button.textContent = "Copied"),
      () => (button.textContent = "Copy failed"),
    );
  });
  return button;
}

/** Delete asks once more on the button itself (no dialog): a second click within 5 s deletes. */
function deleteButton(remove: () => Promise<void>): HTMLButtonElement {
  let armed: ReturnType<typeof setTimeout> | null = null;
  const button = h("button", { type: "button", class: "danger", "data-action": "delete" }, "Delete");
  button.addEventListener("click", () => {
    if (armed === null) {
      button.textContent = "Click again to delete";
      armed = setTimeout(() => {
        armed = null;
        button.textContent = "Delete";
      }, 5000);
      return;
    }
    clearTimeout(armed);
    button.disabled = true;
    void remove();
  });
  return button;
}
