import DOMPurify from "dompurify";

/**
 * The document shown in the message's `<iframe sandbox srcdoc>`: the sender's HTML sanitised
 * by DOMPurify (no scripts, handlers, `javascript:` URLs, frames, forms or meta), behind a
 * policy of its own. The frame has neither allow-scripts nor allow-same-origin, so even HTML
 * that slipped past the sanitiser could not run or reach the page; the policy adds that it
 * loads nothing from the network until the user allows remote images for this message
 * (`img-src` then takes http: and https:). `cid:` images stay blocked placeholders.
 */
export function mailDocument(html: string, remoteImages: boolean): { srcdoc: string; remoteImageCount: number } {
  let remoteImageCount = 0;
  const purify = DOMPurify();
  purify.addHook("afterSanitizeAttributes", (node) => {
    if (node instanceof Element && node.tagName === "A" && node.hasAttribute("href")) {
      // Links open outside the viewer, with no referrer and no handle on it.
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
    for (const name of ["src", "background", "poster"]) if (node instanceof Element && /^\s*(https?:)?\/\//i.test(node.getAttribute(name) ?? "")) remoteImageCount += 1;
  });
  const body = purify.sanitize(html, {
    // Keeps a leading <style> (mail puts its CSS in the head).
    FORCE_BODY: true,
    FORBID_TAGS: ["form", "input", "button", "textarea", "select", "iframe", "frame", "object", "embed", "base", "meta", "link"],
    FORBID_ATTR: ["srcdoc", "formaction", "action", "ping"],
  });
  remoteImageCount += body.match(/url\(\s*['"]?\s*(https?:)?\/\//gi)?.length ?? 0;
  const images = remoteImages ? "data: http: https:" : "data:";
  const policy = `default-src 'none'; img-src ${images}; style-src 'unsafe-inline'; font-src data:; base-uri 'none'; form-action 'none'`;
  const srcdoc = `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${policy}"><meta name="referrer" content="no-referrer"><style>body{margin:12px;font-family:system-ui,sans-serif;color:#111;background:#fff;overflow-wrap:anywhere}img{max-width:100%}</style></head><body>${body}</body></html>`;
  return { srcdoc, remoteImageCount };
}
