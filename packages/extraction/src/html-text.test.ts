import { expectLinearTime } from "./linear-time.fixture";
import { htmlToText, scanHtml } from "./html-text";

describe("htmlToText", () => {
  it.each([
    [
      "leaves out head, title, style and script content",
      "<html><head><title>Title 111111</title><style>p{color:#FF0000}</style></head><body><p>Hello</p><script>var c = 222222;</script></body></html>",
      "Hello",
    ],
    [
      "separates block elements by newlines and keeps inline text together",
      "<div>One <b>bold</b> <i>word</i></div><p>Two</p><h1>Three</h1>Four<br>Five<ul><li>a</li><li>b</li></ul>",
      "One bold word\nTwo\nThree\nFour\nFive\na\nb",
    ],
    ["keeps a table row on one line with cells separated by tabs", "<table><tr><td>Code</td><td></td><td>482913</td></tr><tr><th>Total</th><td>$5</td></tr></table>", "Code\t482913\nTotal\t$5"],
    ["collapses whitespace and decodes entities", "<p>  Fish\n\t &amp;   chips&nbsp;&nbsp;&eacute;t&eacute; &#x1F600; </p>", "Fish & chips été 😀"],
    ["drops zero-width characters of preheader padding", "<p>Hi&zwnj;&nbsp;&zwnj;&#8203;&#xFEFF;there</p>", "Hi there"],
    ["leaves out elements hidden with display:none or the hidden attribute", '<div style="display: none !important; max-height:0">Preview 999999</div><p hidden>no</p><p>Shown</p>', "Shown"],
    ["keeps the text of nested elements after a hidden one closes", '<div><span style="display:none"><b>x</b><br>y</span>after</div>', "after"],
    ["keeps line breaks inside pre", "<pre>line 1\nline 2</pre>", "line 1\nline 2"],
    ["ignores comments, including Outlook conditional comments", '<!--[if mso]><v:roundrect href="https://a.test/x">VML</v:roundrect><![endif]--><p>Body</p>', "Body"],
    ["copes with unclosed and stray tags", "<p>One<p>Two</div><td>Three<td>Four", "One\nTwo\tThree\tFour"],
    ["returns an empty string for an empty document", "", ""],
  ])("%s", (_behaviour, html, text) => {
    expect(htmlToText(html)).toBe(text);
  });
});

describe("cost", () => {
  it("reads a large document in linear time", () => {
    const row = "<tr><td style='padding:4px'>Your code</td><td><a href='https://a.test/v?t=1&amp;x=2'>Verify 482913</a></td></tr>";
    const html = "<table>" + row.repeat(10_000) + "</table><p>" + " ".repeat(200_000) + "x</p>" + "<b>\t</b>".repeat(20_000);
    let scanned: ReturnType<typeof scanHtml> | undefined;
    expectLinearTime(() => (scanned = scanHtml(html)));
    expect(scanned!.anchors).toHaveLength(10_000);
    expect(scanned!.text.startsWith("Your code\tVerify 482913\n")).toBe(true);
  });
});

describe("scanHtml anchors", () => {
  it.each<[string, string, [href: string, text: string | null][]]>([
    [
      "lists hrefs in document order with collapsed anchor text",
      '<a href="https://a.test/1">One\n  <b>link</b></a><p><a href="https://a.test/2?a=1&amp;b=2">Two<br>lines</a></p>',
      [["https://a.test/1", "One link"], ["https://a.test/2?a=1&b=2", "Two lines"]],
    ],
    [
      "uses image alt text when an anchor has no text, else null",
      '<a href="https://a.test/1"><img src="cid:b" alt="Verify email"></a><a href="https://a.test/2"><img src="cid:c"></a>',
      [["https://a.test/1", "Verify email"], ["https://a.test/2", null]],
    ],
    [
      "includes area elements and anchors inside hidden elements",
      '<div style="display:none"><a href="https://a.test/h">Hidden</a></div><map><area href="https://a.test/m" alt="Map"></map>',
      [["https://a.test/h", "Hidden"], ["https://a.test/m", "Map"]],
    ],
    [
      "skips anchors without href and ends an unclosed anchor at the next one",
      '<a name="top">Top</a><a href="https://a.test/1">One<a href="https://a.test/2">Two</a>',
      [["https://a.test/1", "One"], ["https://a.test/2", "Two"]],
    ],
    ["does not take links from comments or the head", '<head><link rel="stylesheet" href="https://fonts.test/css"></head><!-- <a href="https://a.test/c">c</a> --><p>x</p>', []],
  ])("%s", (_behaviour, html, anchors) => {
    expect(scanHtml(html).anchors).toEqual(anchors.map(([href, text]) => ({ href, text })));
  });
});
