import { z } from "zod";
import { beyondAgnoReason } from "./beyond-agno.js";

/** Where a wire schema comes from: agno's file and class on its `feat/v3.0` branch. */
export interface AgnoSource {
  /** the class name, which is also the OpenAPI component's name */
  model: string;
  /** the file under `libs/agno/agno/` that defines it, e.g. `os/schema.py` */
  file: string;
}

/**
 * One of agno's response models as a strict zod object: an answer with a field agno's model does
 * not have fails to parse (the conformance suite parses every answer with these). `extra` holds
 * fields agno-edge adds; each must be listed in `BEYOND_AGNO` with its reason, or this throws when
 * the module loads, so an unlisted addition cannot ship.
 */
export function agnoObject<A extends z.ZodRawShape, E extends z.ZodRawShape = Record<never, never>>(
  source: AgnoSource,
  shape: A,
  extra?: E,
) {
  const extraShape: Record<string, z.ZodType> = {};
  for (const [field, schema] of Object.entries(extra ?? {})) {
    const reason = beyondAgnoReason(source.model, field);
    if (!reason) throw new TypeError(`${source.model}.${field} is beyond agno's model but not listed in BEYOND_AGNO`);
    extraShape[field] = (schema as z.ZodType).describe(`Beyond agno: ${reason}`);
  }
  return z.strictObject({ ...shape, ...(extraShape as unknown as E) }).meta({
    id: source.model,
    "x-agno": `libs/agno/agno/${source.file}:${source.model}`,
    ...(extra && Object.keys(extra).length > 0 && { "x-beyond-agno": Object.keys(extra) }),
  });
}

/** agno's `source` of a wire schema (arrays and nullables unwrapped), or undefined when it is not one of agno's models. */
export function agnoSourceOf(schema: z.ZodType): string | undefined {
  let s: z.ZodType = schema;
  for (;;) {
    const meta = z.globalRegistry.get(s) as { "x-agno"?: string } | undefined;
    if (meta?.["x-agno"]) return meta["x-agno"];
    if (s instanceof z.ZodArray) s = s.element as z.ZodType;
    else if (s instanceof z.ZodNullable || s instanceof z.ZodOptional) s = s.unwrap() as z.ZodType;
    else return undefined;
  }
}

/** A datetime as pydantic serialises one: ISO 8601 with a UTC offset (`Z` or `+00:00`). */
export const agnoDatetime = () => z.iso.datetime({ offset: true });

/**
 * `epochMs` written as agno writes a UTC datetime (pydantic v2's JSON mode): `Z` for the offset,
 * the fraction in microseconds, and no fraction at all on a whole second.
 */
export function agnoDatetimeOf(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  const millis = iso.slice(20, 23);
  return millis === "000" ? `${iso.slice(0, 19)}Z` : `${iso.slice(0, 19)}.${millis}000Z`;
}
