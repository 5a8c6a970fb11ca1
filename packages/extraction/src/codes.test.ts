import { expectLinearTime } from "./linear-time.fixture";
import { codeOccurrences, findCodes, normalizeText } from "./codes";

const body = (text: string): string[] => findCodes("", text);

describe("what is a code", () => {
  it.each(["1234", "48291", "482913", "4829137", "48291377"])("takes a run of 4 to 8 digits: %s", (code) => {
    expect(body(`Here it is: ${code} — thanks`)).toEqual([code]);
  });

  it.each(["123", "123456789", "4829137712"])("ignores a run of another length: %s", (run) => {
    expect(body(`Here it is: ${run} — thanks`)).toEqual([]);
  });

  it.each(["K7Q2XZ", "A1B2C3D4", "7HX2PQ9LMN3R", "482913A"])("takes a 6 to 12 character upper-case token with a digit and a letter: %s", (code) => {
    expect(body(`Use ${code} to continue.`)).toEqual([code]);
  });

  it.each(["K7Q2X", "K7Q2XZ9P4M2NV", "k7q2xz", "K7q2XZ", "ACMECLOUD", "VERIFICATION"])("ignores %s", (token) => {
    expect(body(`Use ${token} to continue.`)).toEqual([]);
  });

  it("reads digits and letters written full-width", () => {
    expect(body("認証コード：４８２９１３")).toEqual(["482913"]);
    expect(body("コード：Ｋ７Ｑ２ＸＺ")).toEqual(["K7Q2XZ"]);
  });

  it("separates a code from the characters of scripts without spaces", () => {
    expect(body("あなたのコードは482913です。")).toEqual(["482913"]);
  });

  it("ignores characters that cannot be seen", () => {
    expect(body("Code: 48\u200b29\u00ad13")).toEqual(["482913"]);
  });

  it("takes codes from the subject, then the body", () => {
    expect(findCodes("Your Acme code is 482913", "Or use backup 551234")).toEqual(["482913", "551234"]);
    expect(findCodes("Your Acme code is 482913", null)).toEqual(["482913"]);
  });
});

describe("what is not a code", () => {
  it.each([
    ["an international phone number", "Call +1 (415) 555-0132 today"],
    ["another international format", "Ring +44 20 7946 0958 or +49 30 1234567 or +7 (495) 123-45-67"],
    ["an area code in parentheses", "Call (415) 555-0132"],
    ["a local phone number", "Call 555-0132"],
    ["a toll-free number", "Call 1-800-555-0199 or 0120-123-456"],
    ["a phone number in spaced groups", "Appelez le 01 23 45 67 89 ou 020 7946 0958"],
    ["a labelled phone number", "Phone: 5550132, Tel. 0301234567, Telefon 3012345"],
    ["an ISO date", "Sent on 2026-11-22"],
    ["a date with slashes", "Sent on 22/11/2026 or 11/22/2026"],
    ["a date with dots", "Gesendet am 22.11.2026"],
    ["a timestamp", "at 2026-11-22T10:30:00Z"],
    ["a year", "Copyright 2026 Acme Cloud"],
    ["a year of the last century", "Since 1999 we have served you"],
    ["a year in a Japanese date", "2026年11月22日"],
    ["a year after a month", "November 22, 2026"],
    ["a dollar price", "Total $1234.00"],
    ["a euro price before", "Total € 4999"],
    ["a euro price after", "Total 4.999,00 € or 4999 EUR"],
    ["a rouble price with spaced thousands", "Итого 4 999 ₽ или 1 500 руб."],
    ["a yen price", "合計 ¥4,980 または 4980円"],
    ["a currency code price", "Total USD 1499 or BRL 4990"],
    ["a number with a thousands separator", "We sent 1,234 messages"],
    ["a decimal number", "Rated 4829.50"],
    ["a time", "Expires at 10:30 or 10:30:45"],
    ["a percentage", "Save 1500% or 2500 %"],
    ["a quantity with a unit", "Storage 2048 MB, width 1200px, 5000 points"],
    ["an order number with #", "Order #12345678"],
    ["a reference with №", "Заказ № 12345678"],
    ["a CSS colour", "Colour #FF0000 and #4F2A9C"],
    ["a labelled order number", "Order number: 44417723"],
    ["an order number in a sentence", "Your order number is 44417723"],
    ["an invoice reference", "Invoice INV-2026-0042 and invoice 20261122"],
    ["a German order number", "Bestellnummer: 44417723, Rechnungsnummer 5512345"],
    ["a French order number", "Commande n° 44417723, numéro de commande : 5512345"],
    ["a Spanish order number", "Pedido n.º 44417723"],
    ["a Japanese order number", "ご注文番号：44417723"],
    ["a labelled alphanumeric reference", "Booking reference: X7K2QP"],
    ["the last digits of a card", "Visa •••• 4242, **** **** **** 4242, XXXX-4242, card ending in 4242"],
    ["a US ZIP code", "San Francisco, CA 94105 or New York, NY 10001-1234"],
    ["a postcode before a city", "Acme GmbH, Hauptstraße 1, 10115 Berlin"],
    ["a postcode at the start of a line", "12 Rue de la Paix\n75002 Paris\nFrance"],
    ["a Russian postcode", "125009, Москва, ул. Тверская, д. 7"],
    ["a Dutch postcode", "Keizersgracht 1, 1015 CJ Amsterdam"],
    ["a house number", "1600 Amphitheatre Parkway, Mountain View"],
    ["a suite number", "500 Market Street, Suite 1200"],
    ["a PO box", "PO Box 4821"],
    ["a hyphenated identifier in running text", "Ticket TKT-48213, build ORD-2026-1182, token K7Q2-XZ9P, arch X86_64"],
    ["a version number", "Version 10.4.2.1 and IP 192.168.0.10"],
    ["a number inside a URL", "Open https://acme.test/v/482913/K7Q2XZ?id=ABC123DEF"],
    ["a number inside a bare link", "Open www.acme.test/482913 or acme.test/v/551234"],
    ["a number inside an e-mail address", "Write to user.482913@acme.test"],
    ["an encoding or algorithm name", "Charset UTF8, ISO8859, ISO88591, HTTP2, MD5, SHA256, SHA512, X509, CP1252, WIN1252, UTF16LE, BASE64"],
    ["an acronym without digits", "ACME SUPPORT TEAM"],
    ["a company register number", "Amtsgericht Charlottenburg HRB 123456 B, RCS Nice 812 345 678"],
    ["a VAT or tax id", "USt-IdNr.: DE123456789, VAT GB123456789, CIF B12345678, ИНН 7701234567"],
    ["a licence id", "NMLS ID 2094551"],
    ["a request id", "Request ID: 7F3KQ92M"],
    ["a house number after the street name", "Av. Paulista, 1000 — Rua Augusta 2690 — Friedrichstraße 68"],
    ["a US house number with a directional", "1200 NW Couch Street"],
    ["a curve name", "Key exchange X25519 / ED25519"],
  ])("ignores %s", (_, text) => {
    expect(body(text)).toEqual([]);
  });

  it("still finds the code next to a phone number, a date and a price", () => {
    expect(body("Your code is 482913. Questions? Call +1 (415) 555-0132 before 2026-11-22. Plan: $1234.00/year.")).toEqual(["482913"]);
  });

  it("counts a postcode that a keyword introduces", () => {
    expect(body("Dein Code: 48213 Bitte eingeben")).toEqual(["48213"]);
    expect(findCodes("48213 Is Your Acme Code", null)).toEqual(["48213"]);
  });
});

describe("years and split codes introduced by a keyword", () => {
  it("takes a year-like number right after a keyword", () => {
    expect(body("Your PIN: 1987")).toEqual(["1987"]);
    expect(body("Your verification code is\n2026")).toEqual(["2026"]);
  });

  it("does not take a year that a keyword only precedes from afar", () => {
    expect(body("Two-factor authentication was enabled on your account in 2026.")).toEqual([]);
  });

  it.each([
    ["Your code: 123 456", "123456"],
    ["Your code is 123-456", "123456"],
    ["Votre code : 12 34 56", "123456"],
    ["Security code\n1234 5678", "12345678"],
    ["Your code is 4 8 2 9 1 3", "482913"],
  ])("joins equal digit groups introduced by a keyword: %p", (text, code) => {
    expect(body(text)).toEqual([code]);
  });

  it("reads equal groups without a keyword as separate runs", () => {
    expect(body("Tickets 1234 5678 left")).toEqual(["1234", "5678"]);
    expect(body("Reference 123 456 and 123-456")).toEqual([]);
  });

  it("does not join unequal groups", () => {
    expect(body("Your code: 1234 56")).toEqual(["1234"]);
  });
});

describe("hyphen-split letter codes", () => {
  it.each([
    ["alone on a line", "Go to tv.example/activate and enter:\n\nWDJB-MJHT\n\nIt expires at 10:56.", "WDJB-MJHT"],
    ["alone on a line between spaces and emphasis", "Your login code:\n  **X7K-2PQ-9ZR**  \nThanks", "X7K-2PQ-9ZR"],
    ["alone in the whole text", "BCDF-GHJK", "BCDF-GHJK"],
    ["right after a code word", "Your code is BCDF-GHJK", "BCDF-GHJK"],
    ["after a code word in the same sentence", "Enter the following code when prompted on your TV: BCDF-GHJK", "BCDF-GHJK"],
    ["after OTP", "OTP: K7Q2-XZ9P", "K7Q2-XZ9P"],
    ["in three groups of mixed letters and digits", "Verification code X7K-2PQ-9ZR, valid 10 minutes", "X7K-2PQ-9ZR"],
    ["of 12 characters without the hyphens", "Recovery code:\nAB7C-DE8F-GH9J", "AB7C-DE8F-GH9J"],
  ])("takes one %s, hyphens kept", (_, text, code) => {
    expect(body(text)).toEqual([code]);
  });

  it("takes one in the subject after a code word", () => {
    expect(findCodes("Your Streamline device code: BCDF-GHJK", "Enter it on your TV.")).toEqual(["BCDF-GHJK"]);
  });

  it.each([
    ["a hyphenated identifier in running text", "Ticket TKT-48213, build ORD-2026-1182, token K7Q2-XZ9P, arch X86_64"],
    ["a group without a letter", "Your code:\nORD-2026-1182\nG-482913\nEU-WEST-1\nCOVID-19"],
    ["an encoding name alone on a line", "charset:\nISO-8859-1\nUTF-16LE"],
    ["fewer than 6 characters", "Your code: AB-CD"],
    ["more than 12 characters", "Your code: ABCD-EFGH-JKLM-N"],
    ["lower-case letters", "Your code: bcdf-ghjk\nBcdf-Ghjk"],
    ["a double hyphen", "Your code: BCDF--GHJK"],
    ["a code word in another sentence", "Enter the code on your TV. Model OLED-SEVEN ready"],
    ["a code word too far before", "Your code " + "is valid for a short while on every device " + "BCDF-GHJK today"],
    ["a code word whose code came first", "Your code: 482913 and then BCDF-GHJK here"],
    ["a labelled reference", "Order: ABCD-EF12\nBooking reference: X7K2-QP9Z"],
  ])("does not take %s", (_, text) => {
    expect(body(text).filter((c) => c.includes("-"))).toEqual([]);
  });

  it("orders a hyphen-split code with the other codes", () => {
    expect(body("Backup 551234.\nYour code is BCDF-GHJK")).toEqual(["BCDF-GHJK", "551234"]);
  });
});

describe("traps of real mail", () => {
  it.each([
    ["a card brand and its last four digits", "Payment method: Visa – 4242, MASTERCARD-4444, Amex ending 0005, Discover: 1117"],
    ["the version of a user agent's product token", "user agent: Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0"],
    ["a tracking number", "Tracking number: 1Z999AA10123456784"],
    ["a receipt number", "Receipt #2918-4471"],
    ["an invoice number with a hyphen", "Invoice number: 8A3F2C1D-0001"],
    ["a Unix timestamp or signature in a URL", "https://larder.example/email/verify/4821/0b7f?expires=1795350467&signature=6c1d"],
    ["a year in a product name", "Harbor Freight 2026"],
    ["an IPv6 address", "from 2001:db8:85a3::8a2e:370:7334"],
    ["a timestamp with fractions of a second", "created: 2026-11-22 10:41:07.482913+00:00"],
    ["an 18-digit id in a URL", "https://acme.zitadel.cloud/ui/login/user/init?userID=291850473621845123&code=QW7ZK2"],
    ["a project id with digits", "Verify your email for sprout-prod-8812"],
    ["an unsubscribe footer", "Unsubscribe: https://larder.example/notifications/unsubscribe/4821 · 10115 Berlin"],
  ])("never reads %s as a code", (_, text) => {
    expect(body(text)).toEqual([]);
  });

  it("still finds a code next to a card number and a user agent", () => {
    expect(body("Your code is 482913.\nPaid with Visa – 4242 from Gecko/20100101")).toEqual(["482913"]);
  });
});

describe("order", () => {
  it("puts keyword-adjacent codes first, each group in order of appearance", () => {
    expect(body("Backup 551234. Your verification code is 482913. Also K7Q2XZ.")).toEqual(["482913", "551234", "K7Q2XZ"]);
  });

  it("sees a keyword that follows the code", () => {
    expect(body("Backup 551234.\n482913 is your Acme verification code")).toEqual(["482913", "551234"]);
  });

  it("lets a keyword introduce only the first code after it", () => {
    const occurrences = codeOccurrences("Your codes: 482913, 551234");
    expect(occurrences).toEqual([
      { value: "482913", adjacent: true },
      { value: "551234", adjacent: false },
    ]);
  });

  it("does not reach a keyword beyond the window", () => {
    expect(codeOccurrences("Code. " + "x".repeat(60) + " 482913")).toEqual([{ value: "482913", adjacent: false }]);
  });

  it.each([
    ["code", "Your Acme code is 482913"],
    ["OTP", "OTP 482913"],
    ["PIN", "PIN: 482913"],
    ["passcode", "Passcode 482913"],
    ["one-time", "One-time password 482913"],
    ["verification", "Verification 482913"],
    ["código", "Tu código de verificación es 482913"],
    ["Code (de)", "Dein Code lautet 482913"],
    ["Bestätigungscode", "Bestätigungscode: 482913"],
    ["vérification", "Vérification : 482913"],
    ["verifica", "Codice di verifica 482913"],
    ["код", "Ваш код: 482913"],
    ["コード", "確認コード 482913"],
    ["認証", "認証番号 482913"],
  ])("knows the keyword %s", (_, text) => {
    expect(codeOccurrences(`Order list 551234. ${text}`).map((o) => o.adjacent)).toEqual([false, true]);
  });

  it("does not read PIN inside a word, accented letters included", () => {
    expect(codeOccurrences("Pinewood 482913")).toEqual([{ value: "482913", adjacent: false }]);
    expect(codeOccurrences("Maison Pinède, 482913")).toEqual([{ value: "482913", adjacent: false }]);
  });

  it("de-duplicates, a code being keyword-adjacent if any occurrence is", () => {
    expect(findCodes("551234 and 482913", "Your code is 482913")).toEqual(["482913", "551234"]);
  });
});

describe("cost", () => {
  // Inputs that make a careless regular expression backtrack quadratically or worse, about
  // 200 KB each (see expectLinearTime).
  it.each([
    ["a long word", "a".repeat(200_000)],
    ["a long run of stars", "*".repeat(200_000)],
    ["masked card groups", "**** ".repeat(40_000)],
    ["spaced digit groups", "111 ".repeat(50_000)],
    ["single digits and spaces", "1 ".repeat(100_000) + "a"],
    ["dotted digits", "1.".repeat(100_000)],
    ["spaces without a line break", " ".repeat(200_000) + "x"],
    ["a label with endless fillers", "order" + ":".repeat(200_000)],
    ["a phone prefix with endless digits", "+1" + " 1".repeat(100_000)],
    ["an address-like dot chain", "a.".repeat(100_000) + "@"],
    ["a long hyphen chain of upper-case groups", "AB-".repeat(66_000) + "CD"],
    ["hyphen-split codes alone on their lines", "BCDF-GHJK\n".repeat(20_000)],
    ["hyphen-split codes on one long line", "BCDF-GHJK ".repeat(20_000)],
    ["star-padded hyphen codes", ("*".repeat(50) + "BCDF-GHJK").repeat(4_000)],
    ["code words before hyphen chains", "code ABCD-EFGH ".repeat(13_000)],
    ["a card brand with endless separators", "visa " + "-".repeat(200_000)],
    ["product tokens without end", "Gecko/1.".repeat(25_000)],
  ])("reads %s in linear time", (_, text) => {
    expectLinearTime(() => findCodes(text.slice(0, 1000), text));
  });
});

describe("normalizeText", () => {
  it("collapses spaces and blank lines but keeps tabs apart", () => {
    expect(normalizeText("a  b\u00a0\u00a0c\r\n\r\n  \t d\t \te")).toBe("a b c\nd\te");
  });
});
