import { FILENAME_MAX_BYTES, safeFilename } from "./attachment-filename";

describe("safeFilename", () => {
  it("keeps an ordinary name as it is, accents and spaces included", () => {
    expect(safeFilename("Facture été 2026.pdf")).toBe("Facture été 2026.pdf");
    expect(safeFilename(null)).toBeNull();
  });

  it("removes bidirectional overrides and isolates, so the extension shown is the real one", () => {
    expect(safeFilename("invoice\u202Efdp.exe")).toBe("invoicefdp.exe");
    expect(safeFilename("a\u2066b\u2069\u200F\u200Ec\u061C.txt")).toBe("abc.txt");
  });

  it("removes C0 and C1 controls: CR, LF, NUL, DEL, NEL", () => {
    expect(safeFilename("a\r\nContent-Type: text/html\u0000\u007F\u0085.txt")).toBe("aContent-Type_ text_html.txt");
  });

  it("replaces path separators and folds parent segments, no leading dots", () => {
    expect(safeFilename("../../etc/passwd")).toBe("_._etc_passwd");
    expect(safeFilename("..\\..\\windows\\system32.dll")).toBe("_._windows_system32.dll");
    expect(safeFilename(".bashrc")).toBe("bashrc");
    expect(safeFilename("..")).toBe("attachment");
    expect(safeFilename("\u202E")).toBe("attachment");
  });

  it("caps a 10 KB name at 255 bytes, keeping its extension and whole characters", () => {
    const capped = safeFilename(`${"é".repeat(5_000)}.pdf`)!;
    expect(Buffer.byteLength(capped, "utf8")).toBeLessThanOrEqual(FILENAME_MAX_BYTES);
    expect(capped.endsWith("é.pdf")).toBe(true);
    expect(capped).not.toContain("\uFFFD");
    expect(safeFilename("x".repeat(10_000))).toBe("x".repeat(FILENAME_MAX_BYTES));
  });
});
