import type { z } from "zod";
import { ValidationError } from "../errors.js";

/** Parses request input with a zod schema; the error names the offending field (422). */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown, where: string): z.infer<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.join(".") || where;
  throw new ValidationError(`${where} ${field}: ${issue.message}`, field);
}

/** Reads a JSON body: an empty body is `{}`, malformed JSON is a 400-class ValidationError. */
export async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError("request body is not valid JSON", "body");
  }
}
