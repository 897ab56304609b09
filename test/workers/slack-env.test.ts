import { describe, expect, it } from "vitest";
import { readEnvConfig } from "../../src/worker/env-config.js";

/** The Slack interface's variables: read together, a bad one named, no secret quoted. */
const TOKEN = "xoxb-test-token";
const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const API_URL = "http://127.0.0.1:9/api";

describe("Slack settings in env", () => {
  it("reads SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET and SLACK_API_URL, naming a bad one without quoting secrets", () => {
    const ok = readEnvConfig({ SLACK_BOT_TOKEN: TOKEN, SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: API_URL });
    expect(ok).toMatchObject({
      ok: true,
      config: { slack: { botToken: TOKEN, signingSecret: SECRET, apiUrl: API_URL } },
    });
    expect(readEnvConfig({ SLACK_BOT_TOKEN: TOKEN, SLACK_SIGNING_SECRET: SECRET })).toMatchObject({
      config: { slack: { apiUrl: "https://slack.com/api" } },
    });
    const half = readEnvConfig({ SLACK_BOT_TOKEN: TOKEN });
    expect(half.ok).toBe(false);
    if (!half.ok) {
      expect(half.error.problems.map((p) => p.variable)).toEqual(["SLACK_SIGNING_SECRET"]);
      expect(half.error.message).not.toContain(TOKEN);
    }
    const bad = readEnvConfig({
      SLACK_BOT_TOKEN: "xoxb has spaces",
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: "ftp://x",
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.problems.map((p) => p.variable).sort()).toEqual(["SLACK_API_URL", "SLACK_BOT_TOKEN"]);
      expect(bad.error.message).not.toContain("has spaces");
      expect(bad.error.message).not.toContain(SECRET);
    }
  });
});
