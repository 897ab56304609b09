import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { scriptModel } from "../support/model-script.js";
import { send } from "./worker-client.js";

/** Every route, every kind of bad input: a 4xx with {detail, error_id}, never a 500. */
const routes: Array<[method: string, path: string]> = [
  ["GET", "/config"],
  ["GET", "/sessions"],
  ["POST", "/sessions"],
  ["DELETE", "/sessions"],
  ["GET", "/sessions/s-sweep"],
  ["PATCH", "/sessions/s-sweep"],
  ["DELETE", "/sessions/s-sweep"],
  ["POST", "/sessions/s-sweep/rename"],
  ["GET", "/sessions/s-sweep/runs"],
  ["GET", "/sessions/s-sweep/runs/r-sweep"],
  ["DELETE", "/sessions/s-sweep/runs/r-sweep"],
  ["GET", "/agents"],
  ["GET", "/agents/assistant"],
  ["POST", "/agents/assistant/runs"],
  ["GET", "/agents/assistant/runs"],
  ["GET", "/agents/assistant/runs/r-sweep"],
  ["POST", "/agents/assistant/runs/r-sweep/cancel"],
  ["POST", "/agents/assistant/runs/r-sweep/continue"],
  ["POST", "/agents/assistant/runs/r-sweep/resume"],
  ["GET", "/ws"],
  ["GET", "/openapi.json"],
  ["GET", "/docs"],
  ["GET", "/queue/jobs"],
  ["GET", "/queue/jobs/j-sweep"],
  ["POST", "/queue/jobs/j-sweep/cancel"],
  ["POST", "/queue/jobs/j-sweep/requeue"],
  ["GET", "/queue/stats"],
  ["POST", "/databases/default/migrate"],
  ["POST", "/databases/all/migrate"],
];

const bodies: Array<[label: string, body: string, type: string]> = [
  ["malformed JSON", "{not json", "application/json"],
  ["a JSON array", "[1,2,3]", "application/json"],
  ["wrong types", JSON.stringify({ message: 42, session_name: ["x"], session_ids: "s", limit: "many", tools: 7, target_version: 3, last_event_index: "x", media: "nope", background: "maybe" }), "application/json"],
  ["JSON sent as text", JSON.stringify({ message: "hi" }), "text/plain"],
  ["unknown fields", JSON.stringify({ surprise: true }), "application/json"],
  ["a broken form", "message=%E0%A4%A&stream=perhaps&session_state=%7Bnope", "application/x-www-form-urlencoded"],
  ["an oversized body", JSON.stringify({ message: "x".repeat(1_200_000) }), "application/json"],
];

const queries = ["?limit=-1", "?limit=abc", "?page=0", "?limit=1000000", "?sort_order=sideways", "?type=robot", "?user_id=" + "u".repeat(300), "?db_id=nope", "?target_version=1.0", "?status=LOST"];

it("answers every route's bad input with a 4xx", async () => {
  const script = await scriptModel(env.MODEL_SERVER_URL, []);
  const e = { MODEL: "openai:gpt-test", OPENAI_BASE_URL: script.baseURL, OPENAI_API_KEY: "k" };
  const failures: string[] = [];
  for (const [method, path] of routes) {
    const attempts: Array<[string, RequestInit, string]> = [];
    if (method !== "GET") for (const [label, body, type] of bodies) attempts.push([label, { method, body, headers: { "content-type": type } }, path]);
    for (const q of queries) attempts.push([`query ${q.slice(0, 30)}`, { method }, path + q]);
    for (const [label, init, url] of attempts) {
      // A route that ignores a bad query answers what it always does (the docs page is HTML).
      const raw = await send(url, init, e);
      const text = await raw.text();
      const res = { status: raw.status, body: raw.headers.get("content-type")?.includes("json") && text ? JSON.parse(text) : text };
      const ok = res.status >= 200 && res.status < 500 && (res.status < 400 || (typeof res.body?.detail === "string" && typeof res.body?.error_id === "string"));
      if (!ok) failures.push(`${method} ${url.slice(0, 60)} with ${label}: ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
    }
  }
  expect(failures).toEqual([]);
  expect(await script.requests()).toEqual([]); // no bad request ever reached the model
}, 120_000);
