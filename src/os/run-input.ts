import type { Context } from "hono";
import { ValidationError } from "../errors.js";
import { readJson } from "./params.js";

/**
 * Reads a run request the way AgentOS clients send it: `application/x-www-form-urlencoded` or
 * multipart (agno's Python client), or JSON. Form fields that carry objects arrive as JSON
 * strings; they are parsed here, and a field that is not valid JSON is a 422 naming it.
 */
export async function readRunInput(c: Context): Promise<Record<string, unknown>> {
  const type = c.req.header("content-type") ?? "";
  if (type.includes("application/x-www-form-urlencoded") || type.includes("multipart/form-data")) {
    let form: Record<string, unknown>;
    try {
      form = await c.req.parseBody({ all: true });
    } catch {
      throw new ValidationError("request body is not a valid form", "body");
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(form)) {
      if (typeof value !== "string" && !Array.isArray(value)) continue; // files are not taken here yet
      out[key] = value;
    }
    return out;
  }
  const body = await readJson(c.req.raw);
  if (!body || typeof body !== "object" || Array.isArray(body)) throw new ValidationError("request body must be a JSON object", "body");
  return body as Record<string, unknown>;
}

/** A form field holding JSON (agno sends dicts and lists as JSON strings); objects pass through. */
export function jsonField(input: Record<string, unknown>, name: string): unknown {
  const value = input[name];
  if (typeof value !== "string") return value;
  if (value.trim() === "") return undefined;
  try {
    return JSON.parse(value);
  } catch {
    throw new ValidationError(`${name} must be valid JSON`, name);
  }
}

/** `"true"`/`"false"` as forms send them, or a JSON boolean; absent gives the default. */
export function boolField(input: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const value = input[name];
  if (value === undefined || value === "") return fallback;
  if (value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  throw new ValidationError(`${name} must be true or false`, name);
}
