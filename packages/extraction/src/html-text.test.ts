import { expectLinearTime } from "./linear-time.fixture";
import { htmlToText, scanHtml } from "./html-text";

describe("htmlToText", () => {
  it("leaves out head, title, style and script content", () => {
    const html = "<html><head><title>Title 111111</title><style>p{color:#FF0000}</style></head><body><p>Hello</p><script>var c = 222222;</script></body></html>";
    expect(htmlToText(html)).toBe("Hello");
  });

  it("separates block elements by newlines and keeps inline text together", () => {
    expect(htmlToText("<div>One <b>bold</b> <i>word</i></div><p>Two</p><h1>Three</h1>Four<br>Five<ul><li>a</li><li>b</li></ul>")).toBe(
      "One bold word\nTwo\nThree\nFour\nFive\na\nb",
    );
  });

  it("keeps a table row on one line with cells separated by tabs", () => {
    expect(htmlToText("<table><tr><td>Code</td><td></td><td>482913</td></tr><tr><th>Total</th><td>$5</td></tr></table>")).toBe("Code\t482913\nTotal\t$5");
  });

  it("collapses whitespace and decodes entities", () => {
    expect(htmlToText("<p>  Fish\n\t &amp;   chips&nbsp;&nbsp;&eacute;t&eacute; &#x1F600; </p>")).toBe("Fish & chips été 😀");
  });

  it("drops zero-width characters of preheader padding", () => {
    expect(htmlToText("<p>Hi&zwnj;&nbsp;&zwnj;&#8203;&#xFEFF;there</p>")).toBe("Hi there");
  });

  it("leaves out elements hidden with display:none or the hidden attribute", () => {
    expect(htmlToText('<div style="display: none !important; max-height:0">Preview 999999</div><p hidden>no</p><p>Shown</p>')).toBe("Shown");
  });

  it("keeps the text of nested elements after a hidden one closes", () => {
    expect(htmlToText('<div><span style="display:none"><b>x</b><br>y</span>after</div>')).toBe("after");
  });

  it("keeps line breaks inside pre", () => {
    expect(htmlToText("<pre>line 1\nline 2</pre>")).toBe("line 1\nline 2");
  });

  it("ignores comments, including Outlook conditional comments", () => {
    expect(htmlToText('<!--[if mso]><v:roundrect href="https://a.test/x">VML</v:roundrect><![endif]--><p>Body</p>')).toBe("Body");
  });

  it("copes with unclosed and stray tags", () => {
    expect(htmlToText("<p>One<p>Two</div><td>Three<td>Four")).toBe("One\nTwo\tThree\tFour");
  });

  it("returns an empty string for an empty document", () => {
    expect(htmlToText("")).toBe("");
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
  it("lists hrefs in document order with collapsed anchor text", () => {
    const { anchors } = scanHtml('<a href="https://a.test/1">One\n  <b>link</b></a><p><a href="https://a.test/2?a=1&amp;b=2">Two<br>lines</a></p>');
    expect(anchors).toEqual([
      { href: "https://a.test/1", text: "One link" },
      { href: "https://a.test/2?a=1&b=2", text: "Two lines" },
    ]);
  });

  it("uses image alt text when an anchor has no text, else null", () => {
    const { anchors } = scanHtml('<a href="https://a.test/1"><img src="cid:b" alt="Verify email"></a><a href="https://a.test/2"><img src="cid:c"></a>');
    expect(anchors).toEqual([
      { href: "https://a.test/1", text: "Verify email" },
      { href: "https://a.test/2", text: null },
    ]);
  });

  it("includes area elements and anchors inside hidden elements", () => {
    const { anchors } = scanHtml('<div style="display:none"><a href="https://a.test/h">Hidden</a></div><map><area href="https://a.test/m" alt="Map"></map>');
    expect(anchors).toEqual([
      { href: "https://a.test/h", text: "Hidden" },
      { href: "https://a.test/m", text: "Map" },
    ]);
  });

  it("skips anchors without href and ends an unclosed anchor at the next one", () => {
    const { anchors } = scanHtml('<a name="top">Top</a><a href="https://a.test/1">One<a href="https://a.test/2">Two</a>');
    expect(anchors).toEqual([
      { href: "https://a.test/1", text: "One" },
      { href: "https://a.test/2", text: "Two" },
    ]);
  });

  it("does not take links from comments or the head", () => {
    const { anchors } = scanHtml('<head><link rel="stylesheet" href="https://fonts.test/css"></head><!-- <a href="https://a.test/c">c</a> --><p>x</p>');
    expect(anchors).toEqual([]);
  });
});
