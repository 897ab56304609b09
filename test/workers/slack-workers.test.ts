import { describe, expect, it } from "vitest";
import { verifySlackSignature } from "../../src/interfaces/slack/verify-slack-signature.js";
import { readEnvConfig } from "../../src/worker/env-config.js";

/** The Slack interface in workerd: its variables (read together, a bad one named, no secret quoted) and its signature check. */
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

  it("checks Slack's documented signature example with WebCrypto, in constant time, and refuses a one-bit change", async () => {
    // The example of Slack's "Verifying requests from Slack" guide.
    const body =
      "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    const signature = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";
    const bytes = new TextEncoder().encode(body);
    const at = 1531420618 + 10;
    await expect(
      verifySlackSignature(SECRET, { timestamp: "1531420618", signature }, bytes, at),
    ).resolves.toBeUndefined();
    const flipped = signature.slice(0, -1) + "2";
    await expect(
      verifySlackSignature(SECRET, { timestamp: "1531420618", signature: flipped }, bytes, at),
    ).rejects.toThrow(/does not match/);
    await expect(verifySlackSignature(SECRET, { timestamp: "1531420618", signature }, bytes, at + 600)).rejects.toThrow(
      /five minutes/,
    );
  });
});
