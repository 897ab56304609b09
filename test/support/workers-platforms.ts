/**
 * The chat platforms' credentials the Workers pool runs with: the global setup starts the fake
 * platforms with them, and vitest.config.ts gives them to the Worker as its secrets, so the
 * interfaces' posts from inside workerd reach fakes that accept them.
 */
export const WORKERS_PLATFORMS = {
  slack: { botToken: "xoxb-workers-test", signingSecret: "workers-test-slack-signing-secret" },
  telegram: { token: "123456:AAworkers_test_telegram_token", webhookSecret: "workers_test_telegram_secret" },
  whatsapp: {
    accessToken: "workers-test-whatsapp-token",
    phoneNumberId: "1000000001",
    verifyToken: "workers-test-verify-token",
    appSecret: "workers-test-whatsapp-app-secret",
  },
  /** SuperGrok sign-in's Fernet key (32 bytes, URL-safe base64); the issuer is the fake OAuth server */
  xai: { encryptionKey: "d29ya2Vycy10ZXN0LXhhaS1mZXJuZXQta2V5LTMyYnk=" },
} as const;
