import { describe, expect, it } from "vitest";
import { readEnvConfig } from "../../src/worker/env-config.js";
import { markdownToWhatsApp, verifyMetaSignature } from "../../src/interfaces/whatsapp/index.js";

const TOKEN = "EAAG-access-token-secret";
const PHONE_ID = "106540352242922";
const VERIFY = "verify-me-please";
const SECRET = "app-secret-0123456789";

describe("readEnvConfig: the WhatsApp interface's variables", () => {
  it("reads the WHATSAPP_ variables, naming a malformed or missing one without its value", () => {
    const all = {
      WHATSAPP_ACCESS_TOKEN: TOKEN,
      WHATSAPP_PHONE_NUMBER_ID: PHONE_ID,
      WHATSAPP_VERIFY_TOKEN: VERIFY,
      WHATSAPP_APP_SECRET: SECRET,
    };
    const good = readEnvConfig(all);
    expect(good.ok && good.config.whatsapp).toEqual({
      accessToken: TOKEN,
      phoneNumberId: PHONE_ID,
      verifyToken: VERIFY,
      appSecret: SECRET,
      apiUrl: "https://graph.facebook.com/v25.0",
    });
    expect(readEnvConfig({}).ok && (readEnvConfig({}) as { config: { whatsapp?: unknown } }).config.whatsapp).toBe(
      undefined,
    );
    const badUrl = readEnvConfig({ ...all, WHATSAPP_API_URL: "graph.facebook.com" });
    expect(badUrl.ok).toBe(false);
    if (!badUrl.ok) expect(badUrl.error.problems.map((p) => p.variable)).toEqual(["WHATSAPP_API_URL"]);
    const partial = readEnvConfig({ WHATSAPP_ACCESS_TOKEN: TOKEN, WHATSAPP_PHONE_NUMBER_ID: PHONE_ID });
    expect(partial.ok).toBe(false);
    if (!partial.ok) {
      expect(partial.error.message).toMatch(/WHATSAPP_VERIFY_TOKEN/);
      expect(partial.error.message).toMatch(/WHATSAPP_APP_SECRET/);
      expect(partial.error.message).not.toContain(TOKEN);
    }
  });
});

describe("the WhatsApp interface in workerd", () => {
  it("verifies Meta's signature with the runtime's WebCrypto, and formats as in Node", async () => {
    const body = new TextEncoder().encode('{"object":"whatsapp_business_account","entry":[]}');
    const key = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(SECRET),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, body));
    const header = `sha256=${Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("")}`;
    expect(await verifyMetaSignature(SECRET, body.buffer as ArrayBuffer, header)).toBe(true);
    expect(await verifyMetaSignature("other", body.buffer as ArrayBuffer, header)).toBe(false);
    expect(
      await verifyMetaSignature(SECRET, body.buffer as ArrayBuffer, header.toUpperCase().replace("SHA256", "sha256")),
    ).toBe(true);
    expect(markdownToWhatsApp("**a** 2*3*4")).toBe("*a* 2\u22173\u22174");
  });
});
