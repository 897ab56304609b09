import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { scriptModel } from "../support/model-script.js";
import { call, send } from "./worker-client.js";

/*
 * Every route, every kind of bad input: a 4xx with {detail, error_id}, never a 500 or a hang,
 * never a model call, never a partial write. The routes come from the app's own /openapi.json,
 * so a route added later joins the sweep; cases are generated from each route's documented
 * path, query and body fields (depth, key count, size, NUL, lone surrogates, control characters).
 */

interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  additionalProperties?: unknown;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  minItems?: number;
  anyOf?: Schema[];
}
interface Op {
  parameters?: Array<{ name: string; in: string; schema?: Schema }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

const nonce = Date.now().toString(36);
const sessionId = `s-sweep-${nonce}`;
const scheduleName = `sweep-${nonce}`;

/** Plausible ids for path parameters, so a case reaches the route's own checks. */
const pathValues: Record<string, string> = {
  agent_id: "assistant",
  team_id: "writing-desk",
  workflow_id: "blog-post",
  session_id: sessionId,
  run_id: "r-sweep",
  job_id: "j-sweep",
  schedule_id: "sch-sweep",
  approval_id: "apv-sweep",
  service_account_id: "sa-sweep",
  component_id: `cmp-sweep-${nonce}`,
  version: "1",
  db_id: "default",
  storage_key: "media%2Fsweep",
  message_index: "1",
  trace_id: "trace-sweep",
};

/** Values that make a body valid apart from the field a case spoils (it must be refused for that field alone). */
const known: Record<string, unknown> = {
  message: "hi",
  agent_id: "assistant",
  session_id: sessionId,
  name: scheduleName,
  endpoint: "/agents/assistant/runs",
  cron_expr: "0 0 1 1 *",
  session_ids: [sessionId],
  session_name: "sweep",
  payload: { message: "hi" },
};

const typesOf = (s: Schema) => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);
const isFreeForm = (s: Schema) => typesOf(s).includes("object") && !s.properties && s.additionalProperties !== false;
const isString = (s: Schema) => typesOf(s).includes("string") && !s.enum;

function plausible(name: string, s: Schema): unknown {
  if (name in known) return known[name];
  if (s.enum) return s.enum[0];
  const t = typesOf(s)[0];
  if (t === "string") return "sweep";
  if (t === "integer" || t === "number") return s.minimum ?? 1;
  if (t === "boolean") return false;
  if (t === "array") return s.minItems ? [plausible(name, s.items ?? {})] : [];
  return {};
}

/** `{"a":{"a":…1…}}`, `levels` deep, as JSON text (JSON.stringify itself recurses). */
const deepText = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
const wideText = JSON.stringify(Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`k${i}`, i])));
const bigText = JSON.stringify({ blob: "x".repeat(1_200_000) });

/** Raw JSON values that a free-form field must refuse, by label. */
const freeFormCases: Array<[string, string]> = [
  ["5,000 levels deep", deepText(5000)],
  ["10,001 keys", wideText],
  ["1.2 MB", bigText],
  ["NUL in a value", JSON.stringify({ note: "a\u0000b" })],
  ["NUL in a key", JSON.stringify({ "k\u0000": 1 })],
  ["a lone surrogate in a value", JSON.stringify({ note: "a\ud800b" })],
  ["a lone surrogate deep inside", JSON.stringify({ list: [{ x: ["\udfff"] }] })],
];
/** Strings any text field must refuse, and those only ids refuse (text may hold tabs and newlines). */
const textCases: Array<[string, string]> = [
  ["NUL", "a\u0000b"],
  ["a lone high surrogate", "a\ud800b"],
  ["a lone low surrogate", "\udc00"],
];
const idCases: Array<[string, string]> = [
  ["a control character", "a\u0001b"],
  ["DEL", "a\u007fb"],
];

/** `base` with `field` set to raw JSON text. */
function bodyWith(base: Record<string, unknown>, field: string, raw: string): string {
  const marker = "__sweep_value__";
  return JSON.stringify({ ...base, [field]: marker }).replace(JSON.stringify(marker), raw);
}

interface Case {
  label: string;
  url: string;
  init: RequestInit;
  /** generated cases spoil a documented field: they must be refused */
  mustRefuse: boolean;
}

/** Generated cases for one route: its path ids, its query strings and its body fields. */
function generated(method: string, path: string, op: Op, resolve: (s: Schema) => Schema): Case[] {
  const cases: Case[] = [];
  const params = op.parameters ?? [];
  const fill = (p: string, name: string, value: string) => p.replace(`{${name}}`, value);
  let concrete = path;
  for (const p of params.filter((p) => p.in === "path"))
    concrete = fill(concrete, p.name, pathValues[p.name] ?? "x-sweep");
  for (const p of params.filter((p) => p.in === "path")) {
    for (const bad of ["a%00b", "a%01b", "a%7Fb", "%00"]) {
      let url = path;
      for (const q of params.filter((q) => q.in === "path"))
        url = fill(url, q.name, q.name === p.name ? bad : (pathValues[q.name] ?? "x-sweep"));
      cases.push({ label: `path ${p.name}=${bad}`, url, init: { method }, mustRefuse: true });
    }
  }
  for (const p of params.filter((p) => p.in === "query" && p.schema && isString(resolve(p.schema)))) {
    const bads = ["%00", "a%00b", ...(resolve(p.schema!).pattern ? ["a%01b", "%7F"] : [])];
    for (const bad of bads)
      cases.push({
        label: `query ${p.name}=${bad}`,
        url: `${concrete}?${p.name}=${bad}`,
        init: { method },
        mustRefuse: true,
      });
  }
  const content = op.requestBody?.content ?? {};
  const schema = content["application/json"]?.schema ? resolve(content["application/json"].schema) : undefined;
  if (!schema) return cases;
  const props = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, resolve(v)]));
  const base: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(props))
    if (schema.required?.includes(name) || name === "agent_id" || name === "session_id")
      base[name] = plausible(name, s);
  const json = (body: string): RequestInit => ({ method, body, headers: { "content-type": "application/json" } });
  // A free-form body (no documented fields) is one object: spoil a field of it.
  const freeFields = isFreeForm(schema) ? ["x_sweep"] : [];
  for (const [name, s] of Object.entries(props)) {
    const item = s.items ? resolve(s.items) : undefined;
    if (isFreeForm(s)) freeFields.push(name);
    else if (typesOf(s).includes("array") && item && isFreeForm(item)) {
      for (const [label, raw] of freeFormCases)
        cases.push({
          label: `body ${name}[0] ${label}`,
          url: concrete,
          init: json(bodyWith(base, name, `[${raw}]`)),
          mustRefuse: true,
        });
    } else if (isString(s) || (typesOf(s).includes("array") && item && isString(item))) {
      const wrap = (v: string) => (isString(s) ? JSON.stringify(v) : JSON.stringify([v]));
      for (const [label, bad] of [...textCases, ...(s.pattern || item?.pattern ? idCases : [])]) {
        cases.push({
          label: `body ${name} with ${label}`,
          url: concrete,
          init: json(bodyWith(base, name, wrap(bad))),
          mustRefuse: true,
        });
      }
    }
  }
  for (const name of freeFields) {
    for (const [label, raw] of freeFormCases)
      cases.push({
        label: `body ${name} ${label}`,
        url: concrete,
        init: json(bodyWith(base, name, raw)),
        mustRefuse: true,
      });
  }
  // The same through agno's form encoding, where objects travel as JSON text.
  if (content["application/x-www-form-urlencoded"]) {
    const form = (field: string, value: string): RequestInit => ({
      method,
      body: new URLSearchParams({
        ...Object.fromEntries(Object.entries(base).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)])),
        [field]: value,
      }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    for (const name of freeFields)
      cases.push({
        label: `form ${name} 5,000 levels deep`,
        url: concrete,
        init: form(name, deepText(5000)),
        mustRefuse: true,
      });
    for (const [name, s] of Object.entries(props))
      if (isString(s))
        cases.push({ label: `form ${name} with NUL`, url: concrete, init: form(name, "a\u0000b"), mustRefuse: true });
  }
  return cases;
}

const bodies: Array<[label: string, body: string, type: string]> = [
  ["malformed JSON", "{not json", "application/json"],
  ["a JSON array", "[1,2,3]", "application/json"],
  [
    "wrong types",
    JSON.stringify({
      message: 42,
      session_name: ["x"],
      session_ids: "s",
      limit: "many",
      tools: 7,
      target_version: 3,
      last_event_index: "x",
      media: "nope",
      background: "maybe",
    }),
    "application/json",
  ],
  ["JSON sent as text", JSON.stringify({ message: "hi" }), "text/plain"],
  ["unknown fields", JSON.stringify({ surprise: true }), "application/json"],
  ["a broken form", "message=%E0%A4%A&stream=perhaps&session_state=%7Bnope", "application/x-www-form-urlencoded"],
  ["an oversized body", JSON.stringify({ message: "x".repeat(1_200_000) }), "application/json"],
];

const queries = [
  "?limit=-1",
  "?limit=abc",
  "?page=0",
  "?limit=1000000",
  "?sort_order=sideways",
  "?type=robot",
  "?user_id=" + "u".repeat(300),
  "?db_id=nope",
  "?target_version=1.0",
  "?status=LOST",
  "?start_time=yesterday",
  "?starting_date=2025-13-01",
  "?ending_date=yesterday",
  "?starting_date=2025-02-02&ending_date=2025-02-01",
];

it("answers every route's bad input with a 4xx, calls no model and writes nothing", async () => {
  const script = await scriptModel(env.MODEL_SERVER_URL, []);
  const e = { MODEL: "openai:gpt-test", OPENAI_BASE_URL: script.baseURL, OPENAI_API_KEY: "k" };
  const { body: doc } = await call("/openapi.json", {}, e);
  const resolve = (s: Schema): Schema =>
    s.$ref
      ? resolve(doc.components.schemas[s.$ref.split("/").at(-1)!] as Schema)
      : s.anyOf?.length === 1
        ? resolve(s.anyOf[0]!)
        : s;
  const ops = Object.entries(doc.paths as Record<string, Record<string, Op>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );
  // Every route of the app is swept, including those added after this test was written.
  expect(ops.length).toBeGreaterThanOrEqual(40);
  const failures: string[] = [];
  let generatedCount = 0;
  for (const { path, method, op } of ops) {
    let concrete = path;
    for (const p of op.parameters?.filter((p) => p.in === "path") ?? [])
      concrete = concrete.replace(`{${p.name}}`, pathValues[p.name] ?? "x-sweep");
    const attempts: Case[] = [];
    if (method !== "GET")
      for (const [label, body, type] of bodies)
        attempts.push({
          label,
          url: concrete,
          init: { method, body, headers: { "content-type": type } },
          mustRefuse: false,
        });
    for (const q of queries)
      attempts.push({ label: `query ${q.slice(0, 30)}`, url: concrete + q, init: { method }, mustRefuse: false });
    const gen = generated(method, path, op, resolve);
    generatedCount += gen.length;
    for (const c of [...attempts, ...gen]) {
      // A route that ignores a bad query answers what it always does (the docs page is HTML).
      const raw = await send(c.url, c.init, e);
      const text = await raw.text();
      const res = {
        status: raw.status,
        body: raw.headers.get("content-type")?.includes("json") && text ? JSON.parse(text) : text,
      };
      const shaped = typeof res.body?.detail === "string" && typeof res.body?.error_id === "string";
      const ok = c.mustRefuse
        ? res.status >= 400 && res.status < 500 && shaped
        : res.status >= 200 && res.status < 500 && (res.status < 400 || shaped);
      if (!ok)
        failures.push(
          `${method} ${path} ${c.url.slice(0, 60)} with ${c.label}: ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`,
        );
    }
  }
  expect(failures).toEqual([]);
  expect(generatedCount).toBeGreaterThan(300);
  expect(await script.requests()).toEqual([]); // no bad request ever reached the model
  // Nothing a refused request named was written.
  expect((await call(`/sessions/${sessionId}`, {}, e)).status).toBe(404);
  const schedules = await call("/schedules", {}, e);
  expect(schedules.status).toBe(200);
  expect(schedules.body.data.map((s: { name: string }) => s.name)).not.toContain(scheduleName);
  // No service account was minted under the name the bodies carried, and no write left an audit row.
  const accounts = await call("/service-accounts?limit=100", {}, e);
  expect(accounts.status).toBe(200);
  expect(accounts.body.data.map((a: { name: string }) => a.name)).not.toContain(scheduleName);
  // No component was created, under the path's id or the name the bodies carried.
  expect((await call(`/components/cmp-sweep-${nonce}`, {}, e)).status).toBe(404);
  const components = await call("/components?limit=100", {}, e);
  expect(components.status).toBe(200);
  expect(JSON.stringify(components.body.data)).not.toContain(scheduleName);
  // No eval was run and stored under the name the bodies carried.
  const evals = await call("/eval-runs?limit=1000", {}, e);
  expect(evals.status).toBe(200);
  expect(JSON.stringify(evals.body.data)).not.toContain(scheduleName);
  const audit = await call("/audit?limit=1000", {}, e);
  expect(audit.status).toBe(200);
  expect(JSON.stringify(audit.body.data)).not.toContain(scheduleName);
}, 300_000);
