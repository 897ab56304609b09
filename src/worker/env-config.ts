import { z } from "zod";
import type { CodeModeSession } from "../codemode/session-object.js";
import { DEFAULT_HEARTBEAT_SECONDS } from "../agent/liveness.js";
import { JwtVerifier } from "../os/auth/jwt.js";
import { originProblem } from "../os/cors-origins.js";
import type { AuthConfig } from "../os/auth/middleware.js";
import { errorMessage } from "../errors.js";
import { fromBase64Url } from "../models/xai/base64url.js";
import { parseOtlpHeaders } from "../tracing/otlp-http-exporter.js";
import type { TracingSettings } from "../tracing/tracing-settings.js";

/**
 * The variables and bindings the library reads from a Worker's `env` (a user's own Env extends
 * this). Every one goes through `readEnvConfig`; nothing else in the library reads `env`.
 */
export interface WorkerEnv {
  /** Postgres connection string (Neon in production; PGlite or any Postgres locally) */
  DATABASE_URL?: string;
  /** `host:port` of the local WebSocket-to-TCP proxy; set by `npm run dev`, never in production */
  DB_WS_PROXY?: string;
  /** Postgres schema for agno's tables (default `ai`) */
  AGNO_DB_SCHEMA?: string;
  /** `none` serves without authentication: local development only */
  AGNO_AUTH?: string;
  /** bearer secret every protected route requires */
  OS_SECURITY_KEY?: string;
  /** JSON array of verification keys (PEM public keys, JWKs, `{"kty":"oct",…}` secrets, JWKS): JWT auth */
  JWT_VERIFICATION_KEYS?: string;
  JWT_AUDIENCE?: string;
  JWT_ISSUER?: string;
  /** `true`: with JWT auth, each user sees only their own sessions and runs */
  AGNO_USER_ISOLATION?: string;
  /** how long a streamed run's events stay re-attachable after its last event (default 86400 s) */
  AGNO_RUN_EVENTS_TTL_SECONDS?: string;
  /** how often an executing run marks its row alive (default 10 s); silent for three beats, the cron tick marks it interrupted */
  AGNO_RUN_HEARTBEAT_SECONDS?: string;
  /** seconds of silence after which an SSE stream sends a `: ping` comment (default 15) */
  AGNO_SSE_PING_SECONDS?: string;
  AGNO_OS_ID?: string;
  AGNO_OS_NAME?: string;
  /**
   * browser origins allowed to call the API (CORS, with credentials) besides agno's own
   * (os.agno.com, localhost:3000, …): comma-separated `scheme://host[:port]`, never `*`
   */
  AGNO_CORS_ORIGINS?: string;
  /** the model, `provider:model-id`, listed by `/config`; `workers-ai:@cf/…` needs the AI binding */
  MODEL?: string;
  /**
   * the embedding model of knowledge bases, `provider:model-id`; default the embedding model of
   * MODEL's provider (openai:text-embedding-3-small, google:gemini-embedding-001,
   * mistral:mistral-embed, workers-ai:@cf/baai/bge-base-en-v1.5), through the same base URL and key
   */
  EMBEDDER?: string;
  /** largest file `POST /knowledge/content` accepts, in bytes (default 10485760) */
  AGNO_KNOWLEDGE_MAX_UPLOAD_BYTES?: string;
  /** the JobQueue Durable Object (durable background runs); `wrangler.toml` binds it */
  JOB_QUEUE?: DurableObjectNamespace<Rpc.DurableObjectBranded & { wake(): Promise<void> }>;
  /** background jobs run at once per queue instance (default 32) */
  AGNO_BACKGROUND_MAX_CONCURRENCY?: string;
  /** background jobs waiting or running before new ones get 429 (default 10000) */
  AGNO_QUEUE_MAX_DEPTH?: string;
  /** seconds a job's lease lasts unrenewed before another worker may take the job (default 30) */
  AGNO_QUEUE_LEASE_SECONDS?: string;
  /** background jobs one user (no user: one shared principal) may have waiting or running (default 1000) */
  AGNO_USER_MAX_JOBS?: string;
  /** schedules one user may own (default 100) */
  AGNO_USER_MAX_SCHEDULES?: string;
  /** WebSockets one user may hold open, per isolate (default 20) */
  AGNO_USER_MAX_WEBSOCKETS?: string;
  /** Postgres connections each JobQueue object keeps at most (default AGNO_BACKGROUND_MAX_CONCURRENCY + 4) */
  AGNO_QUEUE_DB_CONNECTIONS?: string;
  /** how long opening a database connection may take before the request answers 503 database_unavailable (default 5000 ms) */
  AGNO_DB_CONNECT_TIMEOUT_MS?: string;
  /** how long a statement may go unanswered before the runtime gives up on it, 503 database_unavailable (default 10000 ms) */
  AGNO_DB_STATEMENT_TIMEOUT_MS?: string;
  /** JobQueue objects that share the jobs (default 1; each runs up to AGNO_BACKGROUND_MAX_CONCURRENCY) */
  AGNO_QUEUE_SHARDS?: string;
  /** the Workers AI binding, for `MODEL=workers-ai:@cf/…` (add `[ai] binding = "AI"` to wrangler.toml) */
  AI?: unknown;
  /** the R2 bucket for offloaded tool results and media (`[[r2_buckets]]` in wrangler.toml) */
  STORAGE?: R2Bucket;
  /** the console's static files (`[assets]` in wrangler.toml, from dist/ui): served at `/ui` (src/worker/console-page.ts) */
  ASSETS?: Fetcher;
  /** STORAGE's bucket name, as references record it (wrangler.toml's [vars]) */
  AGNO_STORAGE_BUCKET?: string;
  /** CodeMode's per-session sandbox state, for an agent's `durableCodeRunner(env.CODEMODE_SESSION)`; `wrangler.toml` binds it */
  CODEMODE_SESSION?: DurableObjectNamespace<CodeModeSession>;
  /** the WhatsApp interface's Cloud API access token, business number id, webhook verify token and app secret (all four, or none) */
  WHATSAPP_ACCESS_TOKEN?: string;
  WHATSAPP_PHONE_NUMBER_ID?: string;
  WHATSAPP_VERIFY_TOKEN?: string;
  WHATSAPP_APP_SECRET?: string;
  /** the Graph API base the WhatsApp interface calls, version included (default https://graph.facebook.com/v25.0) */
  WHATSAPP_API_URL?: string;
  /** the Telegram bot's token from @BotFather (a secret: `wrangler secret put`) */
  TELEGRAM_BOT_TOKEN?: string;
  /** the setWebhook secret_token every Telegram update carries (1-256 of A-Z a-z 0-9 _ -) */
  TELEGRAM_WEBHOOK_SECRET?: string;
  /** the Bot API's base URL (default https://api.telegram.org) */
  TELEGRAM_API_URL?: string;
  /** the Slack interface's bot token (`xoxb-…`); a secret: `npx wrangler secret put SLACK_BOT_TOKEN` */
  SLACK_BOT_TOKEN?: string;
  /** the Slack app's signing secret, which every Slack request is checked against; a secret */
  SLACK_SIGNING_SECRET?: string;
  /** Slack's Web API base URL (default https://slack.com/api) */
  SLACK_API_URL?: string;
  /** a Fernet key (`generateEncryptionKey()`): turns on SuperGrok sign-in, its sessions encrypted in the database */
  XAI_TOKEN_ENCRYPTION_KEY?: string;
  /** the OAuth server SuperGrok sign-in talks to (default https://auth.x.ai) */
  XAI_OAUTH_ISSUER?: string;
  /**
   * where runs' spans go: `db` (agno's trace tables, read by `/traces`), `otlp` (an OpenTelemetry
   * collector), `both` or `off`; default `otlp` when OTEL_EXPORTER_OTLP_ENDPOINT is set, else off
   */
  AGNO_TRACING?: string;
  /** share of new traces recorded, 0 to 1 (default 1); a trace continued from a `traceparent` keeps the caller's decision */
  AGNO_TRACE_SAMPLE_RATIO?: string;
  /** the OTLP/HTTP collector's base URL: spans are POSTed as JSON to `{endpoint}/v1/traces` */
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  /** headers sent to the collector, `key=value,key=value` (values percent-encoded); may hold an API key */
  OTEL_EXPORTER_OTLP_HEADERS?: string;
  /** how long one export to the collector may take before its spans are dropped (default 10000 ms) */
  OTEL_EXPORTER_OTLP_TIMEOUT?: string;
  /** the `service.name` the collector sees (default agno-edge) */
  OTEL_SERVICE_NAME?: string;
}

/** The deployment's settings, validated, with the README's defaults filled in. */
export interface WorkerConfig {
  databaseUrl?: string;
  dbWsProxy?: string;
  dbSchema?: string;
  auth: AuthConfig;
  osId?: string;
  osName?: string;
  /** origins allowed besides agno's (AGNO_CORS_ORIGINS) */
  corsOrigins: string[];
  model?: string;
  /** the knowledge bases' embedding model (EMBEDDER, else MODEL's provider's); undefined when neither names one */
  embedder?: string;
  /** largest knowledge upload, in bytes */
  maxUploadBytes: number;
  storageBucket?: string;
  /** whether the JOB_QUEUE binding is there (and so, validated, DATABASE_URL too) */
  queueBound: boolean;
  queue: { concurrency: number; maxDepth: number; leaseSeconds: number; shards: number; dbConnections: number };
  quotas: { maxJobsPerUser: number; maxSchedulesPerUser: number; maxWebSocketsPerUser: number };
  db: { connectTimeoutMs: number; statementTimeoutMs: number };
  runEventsTtlSeconds: number;
  heartbeatSeconds: number;
  ssePingMs: number;
  /** the WhatsApp interface's settings, when its variables are set (see WhatsAppOptions) */
  whatsapp?: { accessToken: string; phoneNumberId: string; verifyToken: string; appSecret: string; apiUrl: string };
  /** the Telegram bot's settings, when TELEGRAM_BOT_TOKEN is set (for `new Telegram({...config.telegram})`) */
  telegram?: { token: string; webhookSecret: string; apiUrl: string };
  /** the Slack interface's settings, when SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET are both set */
  slack?: { botToken: string; signingSecret: string; apiUrl: string };
  /** SuperGrok sign-in, when XAI_TOKEN_ENCRYPTION_KEY is set (and so, validated, DATABASE_URL too) */
  xai?: { encryptionKey: string; issuer?: string };
  /** where spans go, when tracing is on (AGNO_TRACING) */
  tracing?: TracingSettings;
}

/** Why a deployment is closed: every bad variable, each with what is wrong with it. */
export class ConfigurationError extends Error {
  override readonly name = "ConfigurationError";
  constructor(readonly problems: Array<{ variable: string; message: string }>) {
    super(`the deployment is misconfigured: ${problems.map((p) => `${p.variable} ${p.message}`).join("; ")}`);
  }
  /** an authentication setting is wrong: callers are told as a 401 would (their credentials cannot be checked) */
  get concernsAuth(): boolean {
    return this.problems.some((p) => AUTH_VARIABLES.has(p.variable));
  }
}

const AUTH_VARIABLES = new Set([
  "AGNO_AUTH",
  "OS_SECURITY_KEY",
  "JWT_VERIFICATION_KEYS",
  "JWT_AUDIENCE",
  "JWT_ISSUER",
  "AGNO_USER_ISOLATION",
]);

/** An optional positive whole number written as text, with its default (0: none, the caller derives one). */
const count = (fallback: number) =>
  z
    .string()
    .regex(/^\s*[0-9]+\s*$/, "must be a positive whole number")
    .transform(Number)
    .refine((n) => Number.isSafeInteger(n) && n > 0, "must be a positive whole number")
    .optional()
    .transform((n) => n ?? fallback);

const text = z
  .string()
  .optional()
  .transform((s) => (s === "" ? undefined : s));

/** The providers an EMBEDDER may name. */
const EMBEDDING_PROVIDERS = ["openai", "google", "mistral", "openai-compatible", "ollama", "vllm", "workers-ai"];

/** The WhatsApp interface's variables: secrets, so no message here ever quotes a value. */
const WHATSAPP_SECRETS = [
  "WHATSAPP_ACCESS_TOKEN",
  "WHATSAPP_PHONE_NUMBER_ID",
  "WHATSAPP_VERIFY_TOKEN",
  "WHATSAPP_APP_SECRET",
] as const;
const WHATSAPP_SCHEMA = {
  WHATSAPP_ACCESS_TOKEN: text,
  WHATSAPP_PHONE_NUMBER_ID: text.refine(
    (s) => s === undefined || /^[0-9]+$/.test(s),
    "must be the number's id (digits)",
  ),
  WHATSAPP_VERIFY_TOKEN: text,
  WHATSAPP_APP_SECRET: text,
  WHATSAPP_API_URL: text.refine(
    (s) => s === undefined || /^https?:\/\/[^\s/]+(\/\S*)?$/.test(s),
    "must be an http(s) URL such as https://graph.facebook.com/v25.0",
  ),
};

const schema = z.object({
  DATABASE_URL: text,
  DB_WS_PROXY: text,
  AGNO_DB_SCHEMA: text.refine(
    (s) => s === undefined || /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/.test(s),
    "must be a plain Postgres identifier",
  ),
  AGNO_AUTH: text.refine((s) => s === undefined || s === "none", 'must be "none" or unset'),
  OS_SECURITY_KEY: text,
  JWT_VERIFICATION_KEYS: text,
  JWT_AUDIENCE: text,
  JWT_ISSUER: text,
  AGNO_USER_ISOLATION: z.enum(["true", "false"], 'must be "true" or "false"').optional(),
  AGNO_RUN_EVENTS_TTL_SECONDS: count(86_400),
  AGNO_RUN_HEARTBEAT_SECONDS: count(DEFAULT_HEARTBEAT_SECONDS),
  AGNO_SSE_PING_SECONDS: count(15),
  AGNO_OS_ID: text,
  AGNO_OS_NAME: text,
  AGNO_CORS_ORIGINS: text.superRefine((s, ctx) => {
    const problem = originsOf(s)
      .map((o) => originProblem(o))
      .find((p) => p !== undefined);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }),
  MODEL: text.refine(
    (s) => s === undefined || /^[A-Za-z0-9._-]+(:\S*)?$/.test(s),
    "must be provider:model-id (for example openai:gpt-4.1-mini)",
  ),
  EMBEDDER: text.refine(
    (s) => s === undefined || new RegExp(`^(${EMBEDDING_PROVIDERS.join("|")}):\\S+$`).test(s),
    `must be provider:model-id with a provider of ${EMBEDDING_PROVIDERS.join(", ")} (for example openai:text-embedding-3-small)`,
  ),
  AGNO_KNOWLEDGE_MAX_UPLOAD_BYTES: count(10 * 1024 * 1024),
  AGNO_BACKGROUND_MAX_CONCURRENCY: count(32),
  AGNO_QUEUE_MAX_DEPTH: count(10_000),
  AGNO_QUEUE_LEASE_SECONDS: count(30),
  AGNO_USER_MAX_JOBS: count(1000),
  AGNO_USER_MAX_SCHEDULES: count(100),
  AGNO_USER_MAX_WEBSOCKETS: count(20),
  AGNO_QUEUE_DB_CONNECTIONS: count(0),
  AGNO_DB_CONNECT_TIMEOUT_MS: count(5_000),
  AGNO_DB_STATEMENT_TIMEOUT_MS: count(10_000),
  AGNO_QUEUE_SHARDS: count(1),
  AGNO_STORAGE_BUCKET: text,
  ...WHATSAPP_SCHEMA,
  // Their messages never quote the values: they are secrets.
  TELEGRAM_BOT_TOKEN: text.refine(
    (s) => s === undefined || /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/.test(s),
    "must be the bot token @BotFather gave (digits:letters)",
  ),
  TELEGRAM_WEBHOOK_SECRET: text.refine(
    (s) => s === undefined || /^[A-Za-z0-9_-]{1,256}$/.test(s),
    "must be 1-256 characters of A-Z a-z 0-9 _ - (Telegram's secret_token)",
  ),
  TELEGRAM_API_URL: text.refine(
    (s) => s === undefined || /^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(s),
    "must be an http(s) URL such as https://api.telegram.org",
  ),
  SLACK_BOT_TOKEN: text.refine((s) => s === undefined || /^\S+$/.test(s), "must be one token, without spaces"),
  SLACK_SIGNING_SECRET: text.refine((s) => s === undefined || /^\S+$/.test(s), "must be one token, without spaces"),
  SLACK_API_URL: text.refine((s) => s === undefined || /^https?:\/\/[^\s/]+/.test(s), "must be an http(s) URL"),
  // The message never quotes the value: it is a secret.
  XAI_TOKEN_ENCRYPTION_KEY: text.refine(
    (s) => s === undefined || isFernetKey(s),
    "must be a Fernet key: 32 bytes in URL-safe base64 (generateEncryptionKey() makes one)",
  ),
  XAI_OAUTH_ISSUER: text.refine((s) => s === undefined || /^https?:\/\/[^\s/]+/.test(s), "must be an http(s) URL"),
  AGNO_TRACING: z.enum(["db", "otlp", "both", "off"], 'must be "db", "otlp", "both" or "off"').optional(),
  AGNO_TRACE_SAMPLE_RATIO: text.refine(
    (s) => s === undefined || (/^\s*[0-9]*\.?[0-9]+\s*$/.test(s) && Number(s) <= 1),
    "must be a number from 0 to 1",
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: text.refine(
    (s) => s === undefined || /^https?:\/\/[^\s/]+(\/\S*)?$/.test(s),
    "must be an http(s) URL such as http://collector:4318",
  ),
  // The message never quotes the value: it may hold an API key.
  OTEL_EXPORTER_OTLP_HEADERS: text.refine((s) => {
    try {
      parseOtlpHeaders(s);
      return true;
    } catch {
      return false;
    }
  }, "must be key=value pairs separated by commas, values percent-encoded"),
  OTEL_EXPORTER_OTLP_TIMEOUT: count(10_000),
  OTEL_SERVICE_NAME: text,
});

/** AGNO_CORS_ORIGINS's origins: comma-separated, blanks around them ignored. */
function originsOf(list: string | undefined): string[] {
  return (list ?? "")
    .split(",")
    .map((o) => o.trim())
    .filter((o) => o !== "");
}

/** A Fernet key is 32 bytes (signing key, then encryption key) in URL-safe base64. */
function isFernetKey(s: string): boolean {
  if (!/^[A-Za-z0-9_-]{43}=?$/.test(s)) return false;
  try {
    return fromBase64Url(s).length === 32;
  } catch {
    return false;
  }
}

/**
 * Settings that contradict each other, read from the raw env so they are reported together with
 * values that do not parse (zod skips an object's refinements once a field failed).
 */
function contradictions(env: WorkerEnv): Array<{ variable: string; message: string }> {
  const out: Array<{ variable: string; message: string }> = [];
  const set = (v: unknown) => typeof v === "string" && v !== "";
  if (env.JOB_QUEUE !== undefined && !set(env.DATABASE_URL))
    out.push({
      variable: "DATABASE_URL",
      message: "is required by the JOB_QUEUE binding (background runs are stored): set it, or remove the binding",
    });
  if (typeof env.MODEL === "string" && env.MODEL.startsWith("workers-ai:") && env.AI === undefined)
    out.push({
      variable: "MODEL",
      message: 'names Workers AI but the Worker has no AI binding: add [ai] binding = "AI" to wrangler.toml',
    });
  if (env.AGNO_USER_ISOLATION === "true" && !set(env.JWT_VERIFICATION_KEYS))
    out.push({
      variable: "AGNO_USER_ISOLATION",
      message: "needs JWT_VERIFICATION_KEYS (users are told apart by their tokens)",
    });
  const wa = env as Record<string, unknown>;
  if (WHATSAPP_SECRETS.some((k) => set(wa[k])))
    for (const k of WHATSAPP_SECRETS)
      if (!set(wa[k])) out.push({ variable: k, message: "is required with the other WHATSAPP_ variables" });
  if (set(env.TELEGRAM_BOT_TOKEN) && !set(env.TELEGRAM_WEBHOOK_SECRET))
    out.push({
      variable: "TELEGRAM_WEBHOOK_SECRET",
      message: "is required with TELEGRAM_BOT_TOKEN (it authenticates Telegram's updates)",
    });
  if (set(env.XAI_TOKEN_ENCRYPTION_KEY) && !set(env.DATABASE_URL))
    out.push({
      variable: "DATABASE_URL",
      message: "is required by XAI_TOKEN_ENCRYPTION_KEY (SuperGrok sign-ins are stored in the database)",
    });
  if ((env.AGNO_TRACING === "otlp" || env.AGNO_TRACING === "both") && !set(env.OTEL_EXPORTER_OTLP_ENDPOINT))
    out.push({
      variable: "OTEL_EXPORTER_OTLP_ENDPOINT",
      message: `is required by AGNO_TRACING=${env.AGNO_TRACING} (where the spans are sent)`,
    });
  if ((env.AGNO_TRACING === "db" || env.AGNO_TRACING === "both") && !set(env.DATABASE_URL))
    out.push({
      variable: "DATABASE_URL",
      message: `is required by AGNO_TRACING=${env.AGNO_TRACING} (the traces are stored in the database)`,
    });
  if ((set(env.JWT_AUDIENCE) || set(env.JWT_ISSUER)) && !set(env.JWT_VERIFICATION_KEYS))
    out.push({
      variable: set(env.JWT_AUDIENCE) ? "JWT_AUDIENCE" : "JWT_ISSUER",
      message: "is set without JWT_VERIFICATION_KEYS",
    });
  return out;
}

/** Slack's token and signing secret go together: one without the other is a half-configured bot. */
function slackProblems(env: WorkerEnv): Array<{ variable: string; message: string }> {
  const set = (v: unknown) => typeof v === "string" && v !== "";
  if (set(env.SLACK_BOT_TOKEN) === set(env.SLACK_SIGNING_SECRET)) return [];
  return set(env.SLACK_BOT_TOKEN)
    ? [
        {
          variable: "SLACK_SIGNING_SECRET",
          message: "is required with SLACK_BOT_TOKEN (Slack's requests are checked with it)",
        },
      ]
    : [{ variable: "SLACK_BOT_TOKEN", message: "is required with SLACK_SIGNING_SECRET (the bot answers with it)" }];
}

/** The JWT verifier the keys describe, or what is wrong with them (JSON, shape, a private key, a short secret), never quoting them. */
function verifierOf(keys: string, opts: { audience?: string; issuer?: string }): JwtVerifier | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(keys);
  } catch {
    // The parser's message quotes the text, which is a secret.
    return "is not JSON (a JSON array of keys)";
  }
  try {
    return new JwtVerifier(Array.isArray(parsed) ? parsed : [parsed], opts);
  } catch (error) {
    return `is not usable: ${errorMessage(error)}`;
  }
}

/**
 * Turns `env` into the deployment's configuration, or one error naming every bad variable (a
 * value that does not parse, or settings that contradict each other). Never falls back to a
 * default for a value that was given: a typo must not quietly change a limit or open the door.
 */
export function readEnvConfig(
  env: WorkerEnv,
): { ok: true; config: WorkerConfig } | { ok: false; error: ConfigurationError } {
  const input = Object.fromEntries(Object.keys(schema.shape).map((k) => [k, (env as Record<string, unknown>)[k]]));
  const parsed = schema.safeParse(input);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((i) => ({
        variable: String(i.path[0] ?? "env"),
        message: i.code === "invalid_type" ? "must be text" : i.message,
      }));
  problems.push(...contradictions(env), ...slackProblems(env));
  let verifier: JwtVerifier | undefined;
  if (typeof env.JWT_VERIFICATION_KEYS === "string" && env.JWT_VERIFICATION_KEYS !== "") {
    const made = verifierOf(env.JWT_VERIFICATION_KEYS, {
      audience: env.JWT_AUDIENCE || undefined,
      issuer: env.JWT_ISSUER || undefined,
    });
    if (typeof made === "string") problems.push({ variable: "JWT_VERIFICATION_KEYS", message: made });
    else verifier = made;
  }
  if (!parsed.success || problems.length > 0) {
    // One entry per variable, in the order they were found.
    const seen = new Set<string>();
    return {
      ok: false,
      error: new ConfigurationError(problems.filter((p) => !seen.has(p.variable) && seen.add(p.variable))),
    };
  }
  const v = parsed.data;
  const auth: AuthConfig = verifier
    ? { mode: "jwt", verifier, userIsolation: v.AGNO_USER_ISOLATION === "true" }
    : v.OS_SECURITY_KEY
      ? { mode: "security_key", securityKey: v.OS_SECURITY_KEY }
      : v.AGNO_AUTH === "none"
        ? { mode: "none" }
        : { mode: "unconfigured" };
  return {
    ok: true,
    config: {
      databaseUrl: v.DATABASE_URL,
      dbWsProxy: v.DB_WS_PROXY,
      dbSchema: v.AGNO_DB_SCHEMA,
      auth,
      osId: v.AGNO_OS_ID,
      osName: v.AGNO_OS_NAME,
      corsOrigins: originsOf(v.AGNO_CORS_ORIGINS),
      model: v.MODEL,
      ...((v.EMBEDDER ?? defaultEmbedder(v.MODEL)) ? { embedder: v.EMBEDDER ?? defaultEmbedder(v.MODEL) } : {}),
      maxUploadBytes: v.AGNO_KNOWLEDGE_MAX_UPLOAD_BYTES,
      storageBucket: v.AGNO_STORAGE_BUCKET,
      queueBound: env.JOB_QUEUE !== undefined,
      // A connection for each running job, and a few for enqueues and claims, so no job waits for one.
      queue: {
        concurrency: v.AGNO_BACKGROUND_MAX_CONCURRENCY,
        maxDepth: v.AGNO_QUEUE_MAX_DEPTH,
        leaseSeconds: v.AGNO_QUEUE_LEASE_SECONDS,
        shards: v.AGNO_QUEUE_SHARDS,
        dbConnections: v.AGNO_QUEUE_DB_CONNECTIONS || v.AGNO_BACKGROUND_MAX_CONCURRENCY + 4,
      },
      quotas: {
        maxJobsPerUser: v.AGNO_USER_MAX_JOBS,
        maxSchedulesPerUser: v.AGNO_USER_MAX_SCHEDULES,
        maxWebSocketsPerUser: v.AGNO_USER_MAX_WEBSOCKETS,
      },
      db: { connectTimeoutMs: v.AGNO_DB_CONNECT_TIMEOUT_MS, statementTimeoutMs: v.AGNO_DB_STATEMENT_TIMEOUT_MS },
      runEventsTtlSeconds: v.AGNO_RUN_EVENTS_TTL_SECONDS,
      heartbeatSeconds: v.AGNO_RUN_HEARTBEAT_SECONDS,
      ssePingMs: v.AGNO_SSE_PING_SECONDS * 1000,
      ...(v.WHATSAPP_ACCESS_TOKEN && v.WHATSAPP_PHONE_NUMBER_ID && v.WHATSAPP_VERIFY_TOKEN && v.WHATSAPP_APP_SECRET
        ? {
            whatsapp: {
              accessToken: v.WHATSAPP_ACCESS_TOKEN,
              phoneNumberId: v.WHATSAPP_PHONE_NUMBER_ID,
              verifyToken: v.WHATSAPP_VERIFY_TOKEN,
              appSecret: v.WHATSAPP_APP_SECRET,
              apiUrl: v.WHATSAPP_API_URL ?? "https://graph.facebook.com/v25.0",
            },
          }
        : {}),
      ...(v.TELEGRAM_BOT_TOKEN && v.TELEGRAM_WEBHOOK_SECRET
        ? {
            telegram: {
              token: v.TELEGRAM_BOT_TOKEN,
              webhookSecret: v.TELEGRAM_WEBHOOK_SECRET,
              apiUrl: v.TELEGRAM_API_URL ?? "https://api.telegram.org",
            },
          }
        : {}),
      ...(v.SLACK_BOT_TOKEN && v.SLACK_SIGNING_SECRET
        ? {
            slack: {
              botToken: v.SLACK_BOT_TOKEN,
              signingSecret: v.SLACK_SIGNING_SECRET,
              apiUrl: v.SLACK_API_URL ?? "https://slack.com/api",
            },
          }
        : {}),
      ...tracingOf(v),
      ...(v.XAI_TOKEN_ENCRYPTION_KEY
        ? {
            xai: {
              encryptionKey: v.XAI_TOKEN_ENCRYPTION_KEY,
              ...(v.XAI_OAUTH_ISSUER ? { issuer: v.XAI_OAUTH_ISSUER } : {}),
            },
          }
        : {}),
    },
  };
}

/** Tracing's settings from AGNO_TRACING and the OTEL_ variables (unset: on, to the collector, only when one is named). */
function tracingOf(v: z.infer<typeof schema>): { tracing?: TracingSettings } {
  const mode = v.AGNO_TRACING ?? (v.OTEL_EXPORTER_OTLP_ENDPOINT ? "otlp" : "off");
  if (mode === "off") return {};
  const exporters = mode === "both" ? (["db", "otlp"] as const) : ([mode] as const);
  return {
    tracing: {
      exporters,
      ...(v.AGNO_TRACE_SAMPLE_RATIO !== undefined ? { sampleRatio: Number(v.AGNO_TRACE_SAMPLE_RATIO) } : {}),
      ...(v.OTEL_EXPORTER_OTLP_ENDPOINT && mode !== "db"
        ? {
            otlp: {
              endpoint: v.OTEL_EXPORTER_OTLP_ENDPOINT,
              headers: parseOtlpHeaders(v.OTEL_EXPORTER_OTLP_HEADERS),
              timeoutMs: v.OTEL_EXPORTER_OTLP_TIMEOUT,
              ...(v.OTEL_SERVICE_NAME ? { serviceName: v.OTEL_SERVICE_NAME } : {}),
            },
          }
        : {}),
    },
  };
}

/** The embedding model of MODEL's provider, where it has one (Anthropic, Groq and others have none). */
const DEFAULT_EMBEDDERS: Record<string, string> = {
  openai: "text-embedding-3-small",
  "openai-responses": "text-embedding-3-small",
  "openai-compatible": "text-embedding-3-small",
  google: "gemini-embedding-001",
  mistral: "mistral-embed",
  "workers-ai": "@cf/baai/bge-base-en-v1.5",
};

/** `provider:model-id` of the default embedder for a MODEL, or undefined. */
export function defaultEmbedder(model: string | undefined): string | undefined {
  const provider = model?.split(":")[0];
  if (!provider || !DEFAULT_EMBEDDERS[provider]) return undefined;
  return `${provider === "openai-responses" ? "openai" : provider}:${DEFAULT_EMBEDDERS[provider]}`;
}
