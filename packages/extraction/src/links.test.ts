import { expectLinearTime } from "./linear-time.fixture";
import { cleanUrl, collectLinks, findTextUrls, kindOf, linkKind } from "./links";

describe("URLs in text", () => {
  it("finds http and https URLs in order", () => {
    expect(findTextUrls("Go to http://a.test/x then HTTPS://b.test/y?z=1#f")).toEqual(["http://a.test/x", "HTTPS://b.test/y?z=1#f"]);
  });

  it.each([
    ["a full stop", "Open https://a.test/verify?t=1.", "https://a.test/verify?t=1"],
    ["a comma", "Open https://a.test/x, then", "https://a.test/x"],
    ["a closing parenthesis", "(see https://a.test/x)", "https://a.test/x"],
    ["angle brackets", "<https://a.test/x>", "https://a.test/x"],
    ["several marks", "Really https://a.test/x?!).", "https://a.test/x"],
    ["a closing square bracket", "[https://a.test/x]", "https://a.test/x"],
    ["markdown emphasis", "**https://a.test/x**", "https://a.test/x"],
  ])("leaves out %s after a URL", (_, text, url) => {
    expect(findTextUrls(text)).toEqual([url]);
  });

  it("keeps parentheses that the URL opened", () => {
    expect(findTextUrls("see https://a.test/wiki/Acme_(company).")).toEqual(["https://a.test/wiki/Acme_(company)"]);
  });

  it("ends a URL at the first non-ASCII character", () => {
    expect(findTextUrls("こちら：https://a.test/v/abcをクリック")).toEqual(["https://a.test/v/abc"]);
    expect(findTextUrls("Ссылка: https://a.test/v/abc»")).toEqual(["https://a.test/v/abc"]);
  });

  it("ignores mailto and other schemes, and an empty host", () => {
    expect(findTextUrls("mailto:a@b.test ftp://a.test/x https:// tel:+14155550132")).toEqual([]);
  });
});

describe("cleanUrl", () => {
  it("trims and drops line breaks inside an href", () => {
    expect(cleanUrl("  https://a.test/very/\n  long ")).toBe("https://a.test/very/  long");
    expect(cleanUrl("https://a.test/very/\r\nlong")).toBe("https://a.test/very/long");
  });

  it.each(["mailto:a@b.test", "/relative", "#top", "javascript:void(0)", "cid:logo"])("refuses %s", (href) => {
    expect(cleanUrl(href)).toBeNull();
  });
});

describe("link kinds", () => {
  it.each([
    ["Verify your email", "verify"],
    ["Confirm my account", "verify"],
    ["Activate", "verify"],
    ["Sign in to Acme", "sign_in"],
    ["Sign-in", "sign_in"],
    ["Log in", "sign_in"],
    ["Magic link", "sign_in"],
    ["Unsubscribe", "unsubscribe"],
    ["Opt out of these emails", "unsubscribe"],
    ["Reset password", "reset_password"],
    ["Forgot your password?", "reset_password"],
    ["Vérifier mon adresse", "verify"],
    ["E-Mail-Adresse bestätigen", "verify"],
    ["Confirmar correo", "verify"],
    ["メールアドレスを確認する", "verify"],
    ["Подтвердить адрес", "verify"],
    ["Se connecter", "sign_in"],
    ["Jetzt anmelden", "sign_in"],
    ["Iniciar sesión", "sign_in"],
    ["ログイン", "sign_in"],
    ["Войти", "sign_in"],
    ["Se désabonner", "unsubscribe"],
    ["Newsletter abbestellen", "unsubscribe"],
    ["Cancelar suscripción", "unsubscribe"],
    ["配信停止", "unsubscribe"],
    ["Отписаться", "unsubscribe"],
    ["Réinitialiser le mot de passe", "reset_password"],
    ["Passwort zurücksetzen", "reset_password"],
    ["Restablecer contraseña", "reset_password"],
    ["Redefinir senha", "reset_password"],
    ["パスワードを再設定", "reset_password"],
    ["Сбросить пароль", "reset_password"],
    ["Recover access to your account", "reset_password"],
    ["Account recovery", "reset_password"],
  ])("reads %p as %s", (text, kind) => {
    expect(kindOf(text)).toBe(kind);
  });

  it.each(["View order", "Track your package", "Help center", "Review recent activity", "Document signing", "Order confirmation", "ご注文内容の確認", "Входящие"])("finds no kind in %p", (text) => {
    expect(kindOf(text)).toBeNull();
  });

  const PRECEDENCE = "unsubscribe > reset_password > verify > sign_in";
  const MAGIC_LINK = "a magic link outranks verify but not reset_password or unsubscribe";
  const RECOVER = "recover before verify and sign-in";
  it.each([
    [PRECEDENCE, "Confirm unsubscribe", "unsubscribe"],
    [PRECEDENCE, "Confirm password reset", "reset_password"],
    [PRECEDENCE, "Log in and verify your email", "verify"],
    [PRECEDENCE, "Unsubscribe and reset your password", "unsubscribe"],
    [MAGIC_LINK, "magic-link/verify", "sign_in"],
    [MAGIC_LINK, "Verify and sign in with your magic link", "sign_in"],
    [MAGIC_LINK, "Reset password or use a magic link", "reset_password"],
    [MAGIC_LINK, "Unsubscribe from magic link emails", "unsubscribe"],
    [RECOVER, "Verify it's you to recover your account", "reset_password"],
    [RECOVER, "Log in to the recovery flow", "reset_password"],
  ])("applies the precedence %s: %p is %s", (_rule, text, kind) => {
    expect(kindOf(text)).toBe(kind);
  });

  it("reads the anchor text before the URL", () => {
    expect(linkKind("https://a.test/login?next=x", "Reset your password")).toBe("reset_password");
    expect(linkKind("https://a.test/e/abc", "Click here")).toBe("other");
    expect(linkKind("https://a.test/verify/abc", "Click here")).toBe("verify");
  });

  it.each([
    ["https://a.test/account/verify-email?token=1", "verify"],
    ["https://a.test/confirm/abc", "verify"],
    ["https://a.test/users/sign_in", "sign_in"],
    ["https://a.test/SignIn", "sign_in"],
    ["https://login.a.test/?t=1", "sign_in"],
    ["https://a.test/auth/magic-link?t=1", "sign_in"],
    ["https://a.test/unsubscribe?u=1", "unsubscribe"],
    ["https://a.test/forgot_password", "reset_password"],
    ["https://a.test/#/reset?token=1", "reset_password"],
    ["https://a.test/auth/passwordless?token=1", "other"],
    ["https://a.test/orders/123/order-confirmation", "other"],
    ["https://a.test/signing/document/1", "other"],
    ["https://a.test/preset/blue", "other"],
    ["https://auth.a.test/self-service/recovery?flow=1&token=x", "reset_password"],
    ["https://a.test/__/auth/action?mode=recoverEmail&oobCode=x", "reset_password"],
    ["https://auth.a.test/if/flow/default-recovery-flow/?flow_token=x", "reset_password"],
    ["https://a.test/api/auth/magic-link/verify?token=x&callbackURL=%2F", "sign_in"],
    ["https://a.test/auth/v1/verify?token=x&type=magiclink", "verify"],
  ])("reads the URL %s as %s", (url, kind) => {
    expect(linkKind(url, null)).toBe(kind);
  });

  it.each([
    "https://help.acme.test/hc/en-us/articles/360012345-Verifying-your-email-address",
    "https://acme.test/help/login",
    "https://aide.acme.test/fr/articles/codes-de-verification",
    "https://docs.acme.test/cli/authentication/login",
    "https://acme.test/blog/how-we-reset-passwords",
  ])("does not read a kind from the URL of a help, docs or blog page: %s", (url) => {
    expect(linkKind(url, null)).toBe("other");
    expect(linkKind(url, "Read our guide")).toBe("other");
  });

  it("still reads the anchor text of a help page link", () => {
    expect(linkKind("https://acme.test/help/login", "Sign in")).toBe("sign_in");
  });

  it("reads the path before the query string", () => {
    expect(linkKind("https://a.test/login?next=/settings/password", null)).toBe("sign_in");
    expect(linkKind("https://a.test/auth/action?mode=resetPassword&oobCode=1", null)).toBe("reset_password");
    expect(linkKind("https://a.test/auth?token=1&type=magiclink", null)).toBe("sign_in");
  });

  it("ignores utm parameters and decodes percent-escapes", () => {
    expect(linkKind("https://a.test/welcome?utm_campaign=password_reset", null)).toBe("other");
    expect(linkKind("https://a.test/r?to=%2Fverify%2Fabc", null)).toBe("verify");
    expect(linkKind("https://a.test/r?to=%E0%A4%A", null)).toBe("other");
  });
});

describe("cost", () => {
  it("reads long URLs and runs of brackets in linear time", () => {
    const text = "https://a.test/" + "(x)".repeat(60_000) + ")".repeat(60_000) + " " + "https://a.test/a ".repeat(20_000);
    let urls: string[] = [];
    expectLinearTime(() => {
      urls = findTextUrls(text);
      for (const url of urls.slice(0, 2)) linkKind(url, null);
    });
    expect(urls).toHaveLength(20_001);
  });
});

describe("collectLinks", () => {
  const anchor = (href: string, text: string | null) => ({ href, text });

  it("orders HTML anchors, then new text URLs, then new List-Unsubscribe URLs", () => {
    const links = collectLinks(
      [anchor("https://a.test/verify?t=1", "Verify email"), anchor("https://a.test/help", "Help")],
      "Verify: https://a.test/verify?t=1\nDocs: https://a.test/docs.",
      ["https://a.test/lu?u=1", "https://a.test/help"],
    );
    expect(links).toEqual([
      { url: "https://a.test/verify?t=1", kind: "verify", text: "Verify email" },
      { url: "https://a.test/help", kind: "unsubscribe", text: "Help" },
      { url: "https://a.test/docs", kind: "other", text: null },
      { url: "https://a.test/lu?u=1", kind: "unsubscribe", text: null },
    ]);
  });

  it("keeps the first position, the first text and the first kind that is not other", () => {
    const links = collectLinks(
      [anchor("https://a.test/e/abc", null), anchor("https://a.test/e/abc", "Confirm your account"), anchor("https://a.test/e/abc", "Log in")],
      null,
      [],
    );
    expect(links).toEqual([{ url: "https://a.test/e/abc", kind: "verify", text: "Confirm your account" }]);
  });

  it("skips mailto and relative hrefs and mailto List-Unsubscribe entries", () => {
    const links = collectLinks([anchor("mailto:help@a.test", "Mail us"), anchor("/relative", "Rel")], null, ["mailto:unsub@a.test"]);
    expect(links).toEqual([]);
  });

  it("treats URLs as distinct unless equal", () => {
    const links = collectLinks([anchor("https://a.test/x", null), anchor("https://a.test/x/", null), anchor("http://a.test/x", null)], null, []);
    expect(links.map((l) => l.url)).toEqual(["https://a.test/x", "https://a.test/x/", "http://a.test/x"]);
  });
});
