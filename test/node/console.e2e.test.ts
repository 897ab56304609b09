import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { screenshot } from "../support/screenshots.js";
import { collectPageErrors, launchChromium, seriousViolations } from "../support/browser.js";
import { startDev, type DevServer } from "../support/dev-server.js";
import { syntheticJpeg } from "../support/media-jpeg.js";
import { scriptModel, type ModelScript } from "../support/model-script.js";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/**
 * The browser console end to end: `npm run dev` (auth off, as it starts by default) with the
 * scripted model, driven in headless Chromium as a person uses it. The tests run in order on one
 * page and one conversation; each ends with no console error on the page.
 */
describe("the console at /ui, served by npm run dev", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "agno-console-"));
  let dev: DevServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let script: ModelScript;

  beforeAll(async () => {
    script = await scriptModel(inject("modelServerUrl"), [
      { text: "Hello from the console, streamed as it arrives.", chunkSize: 4, delayMs: 40 },
      { toolCalls: [{ name: "get_current_time", arguments: { timezone: "Europe/Paris" } }] },
      { text: "It is morning in Paris." },
      { toolCalls: [{ id: "note-1", name: "save_note", arguments: { note: "buy milk" } }] },
      { text: "Saved your note." },
      { toolCalls: [{ id: "remind-1", name: "set_reminder", arguments: { text: "call mum" } }] },
      { text: "I will remind you to call mum tomorrow at nine." },
      { text: ALPHABET, chunkSize: 2, delayMs: 60 },
      { text: "A small grey picture." },
      // the team: its leader delegates, the researcher answers, the leader sums up
      { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "researcher", task: "Tides" } }] },
      { text: "Two tides a day." },
      { text: "The desk says: two tides a day." },
      // the workflow: research, a person's review, then the writer
      { text: "Research: tides come twice daily." },
      { text: "A post about tides." },
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

  const lastRun = () => page.locator("article.run").last();
  const send = async (message: string) => {
    await page.getByLabel("Message").fill(message);
    await page.getByRole("button", { name: "Send", exact: true }).click();
  };
  const settled = (run: Locator, status = "completed") =>
    expect.poll(() => run.getAttribute("data-status"), { timeout: 30_000 }).toBe(status);
  const text = (locator: Locator) => expect.poll(() => locator.textContent());

  it("opens without sign-in when auth is off, with a strict Content-Security-Policy, linked from /", async () => {
    const home = await fetch(`${dev.url}/`);
    expect(home.headers.get("link")).toBe('</ui>; rel="console"');
    const response = await page.goto(`${dev.url}/ui`);
    expect(response!.status()).toBe(200);
    const csp = response!.headers()["content-security-policy"]!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(response!.headers()["x-content-type-options"]).toBe("nosniff");
    await page.getByLabel("Chat with").waitFor();
    // The example's agent, team and workflow, each under its kind.
    expect(await page.getByLabel("Chat with").locator("option").allTextContents()).toEqual([
      "Assistant",
      "Writing desk",
      "Blog post",
    ]);
    expect(
      await page
        .getByLabel("Chat with")
        .locator("optgroup")
        .evaluateAll((groups) => groups.map((g) => (g as HTMLOptGroupElement).label)),
    ).toEqual(["Agents", "Teams", "Workflows"]);
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("streams the answer as it arrives", async () => {
    await send("Say hello");
    await text(page.locator("article.user").last()).toContain("Say hello");
    // Part of the text is on the page while the run is still running: it streams.
    await page.waitForFunction(() => {
      const runs = document.querySelectorAll<HTMLElement>("article.run");
      const run = runs.item(runs.length - 1) as HTMLElement | null;
      return run?.dataset.status === "running" && (run.querySelector(".content")?.textContent ?? "").length > 0;
    });
    await settled(lastRun());
    await text(lastRun().locator(".content")).toBe("Hello from the console, streamed as it arrives.");
    await page.getByText(/^Session /).waitFor();
    expect(errors).toEqual([]);
  });

  it("shows a tool call with its arguments and result", async () => {
    await send("What time is it in Paris?");
    const run = lastRun();
    await settled(run);
    const tool = run.locator('details[data-tool="get_current_time"]');
    await text(tool).toContain("done");
    await tool.locator("summary").click();
    await text(tool).toContain("Europe/Paris");
    await text(tool.locator("pre").last()).not.toBe("");
    await text(run.locator(".content")).toBe("It is morning in Paris.");
    expect(errors).toEqual([]);
  });

  it("confirms a paused run in the page, which then finishes", async () => {
    await send("Remember to buy milk");
    const run = lastRun();
    await settled(run, "paused");
    const form = run.getByRole("form", { name: "The run waits for you" });
    await text(form).toContain("save_note");
    await text(form).toContain("buy milk");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "console-chat");
    await form.getByRole("button", { name: "Confirm" }).click();
    await settled(run);
    await text(run.locator(".content")).toBe("Saved your note.");
    await text(run.locator('details[data-tool="save_note"]')).toContain("done");
    expect(errors).toEqual([]);
  });

  it("asks for the input a paused tool needs, and the run goes on with what was typed", async () => {
    await send("Remind me to call mum");
    const run = lastRun();
    await settled(run, "paused");
    const form = run.getByRole("form", { name: "The run waits for you" });
    await text(form).toContain("call mum");
    // Only the field the tool leaves to a person is asked for; the form cannot be sent empty.
    const when = form.getByLabel(/^when/);
    await when.waitFor();
    expect(await form.getByRole("textbox").count()).toBe(1);
    expect(await form.getByRole("button", { name: "Confirm" }).count()).toBe(0);
    expect(await when.evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await when.fill("tomorrow at nine");
    await form.getByRole("button", { name: "Send" }).click();
    await settled(run);
    await text(run.locator(".content")).toBe("I will remind you to call mum tomorrow at nine.");
    await text(run.locator('details[data-tool="set_reminder"]')).toContain("reminder set: call mum, tomorrow at nine");
    // The model was handed the tool's result, run with the person's value.
    const sent = JSON.stringify((await script.requests()).at(-1)!.body);
    expect(sent).toContain("reminder set: call mum, tomorrow at nine");
    expect(errors).toEqual([]);
  });

  it("resumes a stream that dropped mid-run from the last event it saw", async () => {
    // The run's stream reaches the page cut after three chunks, as a dropped connection ends it;
    // the run goes on on the server, and the page re-attaches with /resume.
    await page.route(
      "**/agents/assistant/runs",
      async (route) => {
        const request = route.request();
        const upstream = await fetch(request.url(), {
          method: "POST",
          headers: { "content-type": request.headers()["content-type"]! },
          body: new Uint8Array(request.postDataBuffer()!),
        });
        const reader = upstream.body!.pipeThrough(new TextDecoderStream()).getReader();
        let text = "";
        while ((text.match(/event: RunContent/g) ?? []).length < 3) text += (await reader.read()).value ?? "";
        await reader.cancel();
        await route.fulfill({
          status: 200,
          headers: { "content-type": "text/event-stream" },
          body: text.slice(0, text.lastIndexOf("\n\n") + 2),
        });
      },
      { times: 1 },
    );
    const resumed = page.waitForRequest((r) => r.url().endsWith("/resume") && r.method() === "POST");
    await send("Spell slowly");
    const body = JSON.parse((await resumed).postData()!) as { last_event_index: number; session_id: string };
    expect(body.last_event_index).toBeGreaterThan(0);
    await settled(lastRun());
    await text(lastRun().locator(".content")).toBe(ALPHABET);
    expect(errors).toEqual([]);
  });

  it("uploads an image with the message, shows it back and hands it to the model", async () => {
    await page.getByLabel("Attach files").setInputFiles({
      name: "photo.jpg",
      mimeType: "image/jpeg",
      buffer: Buffer.from(syntheticJpeg(2_000)),
    });
    await page.getByText("Attached: photo.jpg").waitFor();
    await send("What is in this picture?");
    const shown = page.locator("article.user").last().getByRole("img", { name: "photo.jpg" });
    await shown.waitFor();
    expect(await shown.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(8);
    await settled(lastRun());
    await text(lastRun().locator(".content")).toBe("A small grey picture.");
    const sent = JSON.stringify((await script.requests()).at(-1)!.body);
    expect(sent).toContain("image_url");
    expect(sent).toContain("data:image/jpeg;base64,");
    expect(errors).toEqual([]);
  });

  it("fits a phone's width", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "console-phone");
    await page.getByRole("link", { name: "Sessions" }).click();
    await page.getByRole("navigation", { name: "Session list" }).getByRole("button").first().click();
    await page.locator(".session-runs article.run").first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.getByRole("link", { name: "Chat" }).click();
    await page.setViewportSize({ width: 1100, height: 820 });
    expect(errors).toEqual([]);
  });

  it("lists the session and opens its runs in the Sessions view", async () => {
    await page.getByRole("link", { name: "Sessions" }).click();
    const list = page.getByRole("navigation", { name: "Session list" });
    await list.getByRole("button", { name: /Say hello/ }).click();
    const runs = page.locator(".session-runs article.run");
    await expect.poll(() => runs.count()).toBe(6);
    await text(runs.first()).toContain("Hello from the console");
    // The uploaded picture is shown back from the stored run.
    const picture = runs.last().getByRole("img", { name: "Input image 1" });
    await picture.waitFor();
    await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(8);
    // dev keeps media in storage: the page fetched it with the credential and shows a blob: URL.
    expect(await picture.getAttribute("src")).toMatch(/^blob:/);
    await text(page.locator(".session-runs")).toContain("get_current_time");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "console-sessions");
    // Back in Chat, the conversation is where it was; New chat starts another session.
    await page.getByRole("link", { name: "Chat" }).click();
    await expect.poll(() => page.locator("article.run").count()).toBe(6);
    await page.getByRole("button", { name: "New chat" }).click();
    await expect.poll(() => page.locator("article.run").count()).toBe(0);
    await expect.poll(() => page.getByText(/^Session /).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("shows a team's member runs as they happen", async () => {
    await page.getByLabel("Chat with").selectOption("teams/writing-desk");
    await send("Research tides");
    const run = lastRun();
    await settled(run);
    const member = run.getByRole("region", { name: "Member run: Researcher" });
    await text(member).toContain("Two tides a day.");
    await text(run.locator('details[data-tool="delegate_task_to_member"]')).toContain("done");
    await text(run.locator(":scope > .content")).toBe("The desk says: two tides a day.");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "console-team");
    expect(errors).toEqual([]);
  });

  it("shows a workflow's steps, and continues it past a person's review", async () => {
    await page.getByLabel("Chat with").selectOption("workflows/blog-post");
    await send("Tides");
    const run = lastRun();
    await settled(run, "paused");
    await text(run.getByRole("list", { name: "Workflow steps" })).toContain("research: done");
    const form = run.getByRole("form", { name: "The run waits for you" });
    await text(form).toContain("Write the post from this research?");
    await form.getByRole("button", { name: "Confirm" }).click();
    await settled(run);
    await text(run.getByRole("list", { name: "Workflow steps" })).toContain("write: done");
    await text(run.locator(":scope > .content")).toBe("A post about tides.");
    expect(errors).toEqual([]);
  });

  it("renames a session, and deletes one only once the page has asked", async () => {
    const names = async () =>
      ((await (await fetch(`${dev.url}/sessions?limit=50`)).json()) as { data: Array<{ session_name: string }> }).data
        .map((d) => d.session_name)
        .sort();
    await page.getByRole("link", { name: "Sessions" }).click();
    const list = page.getByRole("navigation", { name: "Session list" });
    await list.getByRole("button", { name: /Research tides/ }).click();
    await page.getByLabel("Session name").fill("Tides desk");
    await page.getByRole("button", { name: "Rename" }).click();
    await list.getByRole("button", { name: /Tides desk/ }).waitFor();
    expect(await names()).toEqual(["Say hello", "Tides", "Tides desk"]);

    await page.getByRole("button", { name: "Delete…" }).click();
    const ask = page.getByRole("alertdialog", { name: "Delete this session?" });
    await ask.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await ask.getByRole("button", { name: "Cancel" }).click();
    expect(await names()).toEqual(["Say hello", "Tides", "Tides desk"]);
    await page.getByRole("button", { name: "Delete…" }).click();
    await ask.getByRole("button", { name: "Delete session" }).click();
    await list.getByRole("button", { name: /Tides desk/ }).waitFor({ state: "detached" });
    expect(await names()).toEqual(["Say hello", "Tides"]);
    expect(errors).toEqual([]);
  });
});
