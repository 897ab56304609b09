import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GithubTools } from "../../src/toolkits/github/index.js";
import { ResendTools } from "../../src/toolkits/email/index.js";
import { callThroughAgent, fakeServer, type FakeServer } from "../support/toolkit-kit.js";

let github: FakeServer;
let resend: FakeServer;
const user = { login: "octo" };

beforeAll(async () => {
  // GitHub's REST API: Bearer token, JSON, errors as {message, documentation_url}
  github = await fakeServer((req, res) => {
    res.setHeader("content-type", "application/json; charset=utf-8");
    const send = (status: number, body: unknown) => ((res.statusCode = status), res.end(JSON.stringify(body)));
    if (req.headers.authorization !== "Bearer ghp_test") return send(401, { message: "Bad credentials" });
    const issue = (n: number, pr = false) => ({
      number: n,
      title: `Issue ${n}`,
      state: "open",
      body: "text",
      user,
      labels: [{ name: "bug" }],
      comments: 0,
      created_at: "2026-11-30T10:00:00Z",
      updated_at: "2026-11-30T10:00:00Z",
      html_url: `https://github.com/acme/app/issues/${n}`,
      ...(pr && { pull_request: { url: "x" } }),
    });
    const route = `${req.method} ${req.path}`;
    if (route === "GET /repos/acme/app/issues") return send(200, [issue(1), issue(2, true), issue(3)]);
    if (route === "GET /repos/acme/app/issues/7") return send(200, issue(7));
    if (route === "POST /repos/acme/app/issues") return send(201, { ...issue(8), ...JSON.parse(req.body) });
    if (route === "GET /repos/acme/app/pulls/5")
      return send(200, {
        number: 5,
        title: "Fix",
        state: "open",
        body: null,
        user,
        draft: false,
        merged: false,
        head: { ref: "fix" },
        base: { ref: "main" },
        created_at: "t",
        updated_at: "t",
        html_url: "https://github.com/acme/app/pull/5",
      });
    if (route === "GET /repos/acme/app/contents/src/main.ts")
      return send(200, {
        type: "file",
        encoding: "base64",
        size: 12,
        name: "main.ts",
        path: "src/main.ts",
        sha: "abc",
        content: `${Buffer.from("console.log(1)").toString("base64").slice(0, 8)}\n${Buffer.from("console.log(1)").toString("base64").slice(8)}\n`,
      });
    return send(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest", status: "404" });
  });
  // Resend's API: POST /emails, Bearer key; errors as {statusCode, message, name}
  resend = await fakeServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.headers.authorization !== "Bearer re_test") {
      res.statusCode = 401;
      return res.end(JSON.stringify({ statusCode: 401, message: "API key is invalid", name: "validation_error" }));
    }
    const body = JSON.parse(req.body) as { from: string };
    if (!body.from.endsWith("@acme.dev")) {
      res.statusCode = 403;
      return res.end(
        JSON.stringify({ statusCode: 403, message: "The acme.test domain is not verified.", name: "validation_error" }),
      );
    }
    res.end(JSON.stringify({ id: "49a3999c-0ce1-4ea6-ab68-afcd6dc2e794" }));
  });
});
afterAll(async () => {
  await github.close();
  await resend.close();
});

const gh = (extra: Partial<ConstructorParameters<typeof GithubTools>[0]> = {}) =>
  new GithubTools({ accessToken: "ghp_test", baseUrl: github.url, ...extra });

describe("GithubTools", () => {
  it("issues, pull requests and files through GitHub's REST API", async () => {
    const before = github.requests.length;
    const issues = JSON.parse(
      (await callThroughAgent([gh()], "list_issues", { repo_name: "acme/app" })).execution.result!,
    );
    expect(issues.map((i: { number: number }) => i.number)).toEqual([1, 3]);
    expect(issues[0]).toMatchObject({ title: "Issue 1", user: "octo", labels: ["bug"] });
    const created = await callThroughAgent([gh()], "create_issue", { repo_name: "acme/app", title: "New", body: "b" });
    expect(JSON.parse(created.execution.result!)).toMatchObject({ number: 8, title: "New", body: "b" });
    const pr = await callThroughAgent([gh()], "get_pull_request", { repo_name: "acme/app", pr_number: 5 });
    expect(JSON.parse(pr.execution.result!)).toMatchObject({ number: 5, head: "fix", base: "main", merged: false });
    const file = await callThroughAgent([gh()], "get_file_content", { repo_name: "acme/app", path: "src/main.ts" });
    expect(JSON.parse(file.execution.result!)).toMatchObject({ path: "src/main.ts", content: "console.log(1)" });
    const sent = github.requests.slice(before);
    expect(sent[0]!.query.get("state")).toBe("open");
    expect(sent[0]!.headers).toMatchObject({
      accept: "application/vnd.github+json",
      "x-github-api-version": "2022-11-28",
    });
    expect(JSON.parse(sent[1]!.body)).toEqual({ title: "New", body: "b" });
  });

  it("rejects bad arguments and repositories not allowed before any request", async () => {
    const before = github.requests.length;
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["get_issue", { repo_name: "acme", issue_number: 1 }, /owner\/name/],
      ["get_issue", { repo_name: "acme/app", issue_number: 0 }, /invalid arguments/],
      ["get_file_content", { repo_name: "acme/app", path: "../../../user/repos" }, /without `\.`, `\.\.`/],
      ["get_file_content", { repo_name: "acme/..", path: "a" }, /owner\/name/],
      ["get_issue", { repo_name: "other/secret", issue_number: 1 }, /not one the agent may use/],
    ];
    for (const [name, args, message] of cases) {
      const { execution, toolMessage } = await callThroughAgent([gh({ allowedRepos: ["acme/app"] })], name, args);
      expect(execution.tool_call_error, JSON.stringify(args)).toBe(true);
      expect(toolMessage, JSON.stringify(args)).toMatch(message);
    }
    expect(github.requests.length).toBe(before);
  });

  it("GitHub's error is the tool error the model reads", async () => {
    const missing = await callThroughAgent([gh()], "get_issue", { repo_name: "acme/app", issue_number: 404 });
    expect(missing.toolMessage).toBe("Error: github answered 404: Not Found");
    const denied = await callThroughAgent([gh({ accessToken: "wrong" })], "get_repository", { repo_name: "acme/app" });
    expect(denied.toolMessage).toBe("Error: github answered 401: Bad credentials");
  });
});

describe("ResendTools", () => {
  const mail = (extra: Partial<ConstructorParameters<typeof ResendTools>[0]> = {}) =>
    new ResendTools({ apiKey: "re_test", fromEmail: "bot@acme.dev", baseUrl: resend.url, ...extra });

  it("send_email posts Resend's request", async () => {
    const { execution } = await callThroughAgent([mail()], "send_email", {
      to_email: "ana@example.com",
      subject: "Hi",
      body: "<p>Hello</p>",
    });
    expect(execution.result).toBe(
      "Email sent to ana@example.com successfully (id 49a3999c-0ce1-4ea6-ab68-afcd6dc2e794).",
    );
    const req = resend.requests.at(-1)!;
    expect([req.method, req.path]).toEqual(["POST", "/emails"]);
    expect(JSON.parse(req.body)).toEqual({
      from: "bot@acme.dev",
      to: ["ana@example.com"],
      subject: "Hi",
      html: "<p>Hello</p>",
    });
  });

  it("bad recipients and domains not allowed are refused before sending; Resend's error reaches the model", async () => {
    const before = resend.requests.length;
    for (const to_email of ["not-an-email", "a@b.com, c@d.com", "eve@evil.example"]) {
      const { execution } = await callThroughAgent([mail({ allowedDomains: ["example.com"] })], "send_email", {
        to_email,
        subject: "s",
        body: "b",
      });
      expect(execution.tool_call_error, to_email).toBe(true);
    }
    expect(resend.requests.length).toBe(before);
    const unverified = await callThroughAgent([mail({ fromEmail: "bot@acme.test" })], "send_email", {
      to_email: "ana@example.com",
      subject: "s",
      body: "b",
    });
    expect(unverified.toolMessage).toBe("Error: resend answered 403: The acme.test domain is not verified.");
  });
});
