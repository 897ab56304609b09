import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { collectPageErrors, launchChromium, seriousViolations } from "../support/browser.js";
import { startDev, type DevServer } from "../support/dev-server.js";
import { scriptModel } from "../support/model-script.js";
import { screenshot } from "../support/screenshots.js";

/**
 * The console's operations views end to end: schedules, the durable queue's jobs, the approvals
 * inbox and the database's migration state, against `npm run dev` (auth off: the caller is admin)
 * with the scripted model, in headless Chromium. The tests run in order on one page; the model
 * answers in the order the runs reach it.
 */
describe("the console's operations views, served by npm run dev", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "agno-console-ops-"));
  let dev: DevServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    const script = await scriptModel(inject("modelServerUrl"), [
      // the schedule's triggered run
      { text: "Good morning from the schedule." },
      // the run that waits for an approver, then its continuation
      { toolCalls: [{ name: "forget_notes", arguments: {} }] },
      { text: "Forgot them." },
      // the background run, cancelled while the model takes its time, then its requeued attempt
      { text: "Too late.", chunkSize: 100, delayMs: 10_000 },
      { text: "Requeued answer." },
    ]);
    [dev, browser] = await Promise.all([
      startDev({
        AGNO_DEV_DATA: dataDir,
        MODEL: "openai:gpt-test",
        OPENAI_BASE_URL: script.baseURL,
        OPENAI_API_KEY: "sk-local",
      }),
      launchChromium(),
    ]);
    const context = await browser.newContext({ viewport: { width: 1100, height: 820 } });
    page = await context.newPage();
    errors = collectPageErrors(page);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await dev?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const api = async <T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${dev.url}${path}`, {
      method,
      ...(body !== undefined && { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return (await res.json()) as T;
  };
  const open = async (view: string) => {
    await page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: view }).click();
    await page.getByRole("region", { name: view === "Database" ? "Databases" : view }).waitFor();
  };
  const text = (locator: Locator) => expect.poll(() => locator.textContent(), { timeout: 30_000 });
  const card = (name: string) => page.locator("li.card", { has: page.getByRole("heading", { name }) });

  it("creates a schedule, showing the server's validation error first, then edits it", async () => {
    await page.goto(`${dev.url}/ui#/schedules`);
    await page.getByText("No schedules yet.").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByText("New schedule").click();
    const form = page.getByRole("form", { name: "New schedule" });
    await form.getByLabel("Name").fill("morning-digest");
    expect(await form.getByLabel("Runs").inputValue()).toBe("/agents/assistant/runs");
    await form.getByLabel("Message").fill("Good morning");
    await form.getByLabel(/Cron expression/).fill("every morning");
    await form.getByRole("button", { name: "Create schedule" }).click();
    await text(form.getByRole("alert")).toMatch(/cron/i);
    // The browser logs the refused request itself; that one line is the only error expected.
    expect(errors).toEqual([expect.stringContaining("status of 422")]);
    errors.splice(0);
    await form.getByLabel(/Cron expression/).fill("0 9 * * *");
    await form.getByLabel("Timezone").fill("Europe/Paris");
    await form.getByRole("button", { name: "Create schedule" }).click();
    const digest = card("morning-digest");
    await text(digest).toContain("0 9 * * * (Europe/Paris)");

    await digest.getByRole("button", { name: "Edit" }).click();
    const edit = digest.getByRole("form", { name: "Edit morning-digest" });
    await edit.getByLabel(/Cron expression/).fill("30 8 * * 1-5");
    await edit.getByRole("button", { name: "Save" }).click();
    await text(digest).toContain("30 8 * * 1-5 (Europe/Paris)");
    const { data } = await api<{ data: Array<{ cron_expr: string; payload: { message: string } }> }>(
      "GET",
      "/schedules",
    );
    expect(data.map((s) => [s.cron_expr, s.payload.message])).toEqual([["30 8 * * 1-5", "Good morning"]]);
    expect(errors).toEqual([]);
  });

  it("runs a schedule now: its history shows the attempt, which the queue completes", async () => {
    const digest = card("morning-digest");
    await digest.getByRole("button", { name: "Run now" }).click();
    await text(digest.getByRole("status")).toContain("Triggered");
    await digest.getByRole("button", { name: "History" }).click();
    const history = digest.getByRole("list", { name: "History of morning-digest" });
    await text(history).toContain("attempt 1");
    await text(history).toContain("success");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "console-schedules");
    expect(errors).toEqual([]);
  });

  it("disables a schedule, and deletes it only once the page has asked", async () => {
    const digest = card("morning-digest");
    await digest.getByRole("button", { name: "Disable" }).click();
    await expect.poll(() => digest.getAttribute("data-enabled")).toBe("false");
    await digest.getByRole("button", { name: "Enable" }).waitFor();
    const { data } = await api<{ data: Array<{ enabled: boolean }> }>("GET", "/schedules");
    expect(data.map((s) => s.enabled)).toEqual([false]);

    await digest.getByRole("button", { name: "Delete…" }).click();
    const ask = page.getByRole("alertdialog", { name: "Delete morning-digest?" });
    expect(await seriousViolations(page)).toEqual([]);
    await ask.getByRole("button", { name: "Cancel" }).click();
    await ask.waitFor({ state: "detached" });
    expect((await api<{ data: unknown[] }>("GET", "/schedules")).data).toHaveLength(1);
    await digest.getByRole("button", { name: "Delete…" }).click();
    await ask.getByRole("button", { name: "Delete schedule" }).click();
    await page.getByText("No schedules yet.").waitFor();
    expect((await api<{ data: unknown[] }>("GET", "/schedules")).data).toHaveLength(0);
    expect(errors).toEqual([]);
  });

  it("approves a tool call from the inbox with a reason, and the run goes on", async () => {
    const paused = await api<{ run_id: string; session_id: string; status: string }>("POST", "/agents/assistant/runs", {
      message: "Forget my notes",
      stream: false,
    });
    expect(paused.status).toBe("PAUSED");
    await open("Approvals");
    await text(page.getByRole("status")).toBe("1 pending");
    const approval = page.locator("li.card").filter({ hasText: "forget_notes" });
    await text(approval).toContain(`Run ${paused.run_id}`);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "console-approvals");
    await approval.getByLabel("Reason (optional)").fill("Clean slate");
    await approval.getByRole("button", { name: "Approve" }).click();
    await page.getByText("Nothing waits for a decision.").waitFor();
    const [decided] = (await api<{ data: Array<{ status: string; resolution_data: unknown }> }>("GET", "/approvals"))
      .data;
    expect(decided!.status).toBe("approved");
    expect(JSON.stringify(decided!.resolution_data)).toContain("Clean slate");
    await expect
      .poll(async () => JSON.stringify(await api("GET", `/sessions/${paused.session_id}/runs`)), { timeout: 30_000 })
      .toContain("Forgot them.");
    expect(errors).toEqual([]);
  });

  it("lists the queue's jobs by status, cancels a running one and requeues it, each once asked", async () => {
    const res = await fetch(`${dev.url}/agents/assistant/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "Take your time", stream: false, background: true }),
    });
    expect(res.status).toBe(202);
    const { run_id } = (await res.json()) as { run_id: string };
    const jobStatus = async () => (await api<{ status: string }>("GET", `/queue/jobs/${run_id}`)).status;
    await expect.poll(jobStatus, { timeout: 30_000 }).toBe("running");

    await open("Jobs");
    const job = page.locator("li.card").filter({ hasText: `Job ${run_id}` });
    await expect.poll(() => job.getAttribute("data-status")).toBe("running");
    await text(page.getByLabel("Queue counts")).toContain("running: 1");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "console-jobs");
    await job.getByRole("button", { name: "Cancel job…" }).click();
    const ask = page.getByRole("alertdialog", { name: "Cancel this job?" });
    await ask.getByRole("button", { name: "Cancel job" }).click();
    await expect.poll(jobStatus, { timeout: 30_000 }).toBe("cancelled");

    await page.getByLabel("Status").selectOption("cancelled");
    // Until the filtered page arrives the list still shows every status (the job among them,
    // already cancelled): wait for the list the filter asked for.
    await expect
      .poll(() => page.locator("li.card").evaluateAll((cards) => cards.map((c) => c.getAttribute("data-status"))), {
        timeout: 30_000,
      })
      .toEqual(["cancelled"]);
    expect(await job.getAttribute("data-status")).toBe("cancelled");
    await job.getByRole("button", { name: "Requeue…" }).click();
    await page
      .getByRole("alertdialog", { name: "Requeue this job?" })
      .getByRole("button", { name: "Requeue job" })
      .click();
    await expect.poll(jobStatus, { timeout: 30_000 }).not.toBe("cancelled");
    await page.getByText("No jobs.").waitFor();
    expect(errors).toEqual([]);
  });

  it("tells a caller without the admin scope that the queue is the admin's", async () => {
    // With auth off in dev every caller is admin: the server's refusal of another credential
    // (test/workers/isolation-matrix.test.ts) is stood in for by the answer it gives.
    await page.route("**/queue/**", (route) =>
      route.fulfill({
        status: 403,
        contentType: "application/json",
        body: JSON.stringify({ detail: "Insufficient permissions", error_id: "forbidden" }),
      }),
    );
    await page.getByRole("button", { name: "Refresh" }).click();
    await text(page.getByRole("alert")).toContain("Only an administrator may see the queue");
    await page.unroute("**/queue/**");
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.filter((e) => !e.includes("status of 403"))).toEqual([]);
    errors.splice(0);
  });

  it("shows the database's schema as current, and migrates it once asked", async () => {
    await open("Database");
    const db = page.locator("li.card").first();
    await expect.poll(() => db.getAttribute("data-state")).toBe("current");
    await text(db).toContain("current");
    await db.getByRole("button", { name: "Migrate…" }).click();
    const ask = db.getByRole("alertdialog");
    expect(await seriousViolations(page)).toEqual([]);
    await ask.getByRole("button", { name: "Migrate", exact: true }).click();
    await text(db.getByRole("status")).toContain("Database migrated successfully");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "console-database");
    expect(errors).toEqual([]);
  });

  it("fits a phone's width on every operations view", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const view of ["Schedules", "Jobs", "Approvals", "Database"]) {
      await open(view);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), view).toBeLessThanOrEqual(390);
      expect(await seriousViolations(page), view).toEqual([]);
    }
    await open("Jobs");
    await page.getByLabel("Status").selectOption("");
    await page.locator("li.card").first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, "console-jobs-phone");
    expect(errors).toEqual([]);
  });
});
