import { expect, test } from "@mailstop/playwright";

// Each test gets a fresh mailstop inbox: sign up with its address, wait for the email the app
// sent (the wait blocks on the server until it is stored), then finish the flow in the browser.

test("signs up and verifies the account through the emailed link", async ({ page, inbox }) => {
  await page.goto("/");
  await page.getByLabel("Email").fill(inbox.address);
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible();

  const link = await inbox.waitForLink("verify", { subject_contains: "Verify your email" });
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "Account verified" })).toBeVisible();
  await expect(page.getByText(inbox.address)).toBeVisible();
});

test("signs up and verifies the account with the emailed code", async ({ page, inbox }) => {
  await page.goto("/");
  await page.getByLabel("Email").fill(inbox.address);
  await page.getByRole("button", { name: "Sign up" }).click();

  const code = await inbox.waitForCode({ subject_contains: "Verify your email" });
  expect(code).toMatch(/^\d{6}$/);
  await page.getByLabel("Code").fill(code);
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page.getByRole("heading", { name: "Account verified" })).toBeVisible();
});
