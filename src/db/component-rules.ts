import { BadRequestError, ComponentArchivedError, ComponentVersionConflictError, ValidationError } from "../errors.js";
import { checkJson } from "../json-limits.js";
import {
  COMPONENT_TYPES,
  type ComponentCreate,
  type ComponentLinkInput,
  type ComponentType,
  type ConfigStage,
  type ConfigWrite,
} from "./ports/component-store.js";
import { validateId } from "./validate.js";

/** Versions live in an INTEGER column: a number outside it is refused here, never sent to the database. */
export const MAX_COMPONENT_VERSION = 2 ** 31 - 1;

/**
 * agno's validate_component_id: ids are URL path segments and appear in schedule endpoints, so
 * whitespace, `/ \ ? # %`, control characters and the segments `.`/`..` are refused (400).
 */
export function checkComponentId(id: string): string {
  if (typeof id !== "string" || id.length === 0) throw new BadRequestError("component_id must not be empty");
  if (id.length > 255) throw new BadRequestError("component_id must be at most 255 characters");
  if (/\s/.test(id)) throw new BadRequestError("component_id must not contain whitespace");
  const hit = [...id].find((ch) => "/\\?#%".includes(ch) || ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127);
  if (hit !== undefined) throw new BadRequestError(`component_id must not contain ${JSON.stringify(hit)}`);
  if (id === "." || id === "..") throw new BadRequestError("component_id must not be a path segment");
  return id;
}

/** agno's generate_component_id_from_name: lower-case, non-alphanumerics folded to one hyphen. */
export function componentIdFromName(name: string): string {
  const slug = [...name.trim()]
    .map((c) => (/[\p{L}\p{N}]/u.test(c) ? c.toLowerCase() : "-"))
    .join("")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "");
  return slug.slice(0, 200) || "component";
}

export function checkVersion(version: unknown, field = "version"): number {
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1 || version > MAX_COMPONENT_VERSION)
    throw new ValidationError(`${field} must be a whole number from 1 to ${MAX_COMPONENT_VERSION}`, field);
  return version;
}

function checkStage(stage: unknown): ConfigStage | undefined {
  if (stage === undefined) return undefined;
  if (stage !== "draft" && stage !== "published") throw new BadRequestError(`Invalid stage: ${String(stage)}`);
  return stage;
}

function checkType(type: unknown): ComponentType {
  if (!COMPONENT_TYPES.includes(type as ComponentType))
    throw new ValidationError(`component_type must be one of ${COMPONENT_TYPES.join(", ")}`, "component_type");
  return type as ComponentType;
}

function checkLinks(links: ComponentLinkInput[] | null | undefined): ComponentLinkInput[] | undefined {
  if (links === undefined || links === null) return undefined;
  if (!Array.isArray(links)) throw new ValidationError("links must be a list", "links");
  const keys = new Set<string>();
  return links.map((link, i) => {
    const where = `links.${i}`;
    if (typeof link !== "object" || link === null) throw new ValidationError(`${where} must be an object`, where);
    validateId(link.child_component_id, `${where}.child_component_id`);
    validateId(link.link_kind, `${where}.link_kind`);
    validateId(link.link_key, `${where}.link_key`);
    if (link.child_version === null || link.child_version === undefined)
      throw new BadRequestError(`child_version is required for link to ${link.child_component_id}`);
    checkVersion(link.child_version, `${where}.child_version`);
    if (!Number.isInteger(link.position) || link.position < 0 || link.position > MAX_COMPONENT_VERSION)
      throw new ValidationError(`${where}.position must be a whole number of at least 0`, `${where}.position`);
    const key = `${link.link_kind}\u0000${link.link_key}`;
    if (keys.has(key))
      throw new BadRequestError(`two links share link_kind ${link.link_kind} and key ${link.link_key}`);
    keys.add(key);
    if (link.meta !== undefined && link.meta !== null) checkJson(link.meta, `${where}.meta`, { text: true });
    return { ...link, meta: link.meta ?? null };
  });
}

function checkConfig(config: unknown, field = "config"): Record<string, unknown> {
  if (typeof config !== "object" || config === null || Array.isArray(config))
    throw new ValidationError(`${field} must be an object`, field);
  checkJson(config, field, { text: true });
  return config as Record<string, unknown>;
}

const optText = (v: unknown, field: string): string | null => {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") throw new ValidationError(`${field} must be text`, field);
  checkJson(v, field, { text: true });
  return v;
};

/** A create, checked before any I/O (the same refusals on every adapter). */
export function validateComponentCreate(input: ComponentCreate): Required<Omit<ComponentCreate, "links">> & {
  links: ComponentLinkInput[] | undefined;
} {
  checkComponentId(input.component_id);
  if (input.user_id !== undefined && input.user_id !== null) validateId(input.user_id, "user_id");
  const metadata = input.metadata ?? null;
  if (metadata !== null) checkConfig(metadata, "metadata");
  return {
    component_id: input.component_id,
    component_type: checkType(input.component_type),
    name: optText(input.name, "name") ?? input.component_id,
    description: optText(input.description, "description"),
    metadata,
    user_id: input.user_id ?? null,
    config: checkConfig(input.config),
    label: optText(input.label, "label"),
    stage: checkStage(input.stage) ?? "draft",
    notes: optText(input.notes, "notes"),
    links: checkLinks(input.links),
  };
}

/** A config write, checked before any I/O. */
export function validateConfigWrite(write: ConfigWrite): ConfigWrite {
  return {
    ...(write.config !== undefined ? { config: checkConfig(write.config) } : {}),
    ...(write.label !== undefined ? { label: optText(write.label, "label") } : {}),
    ...(write.stage !== undefined ? { stage: checkStage(write.stage) } : {}),
    ...(write.notes !== undefined ? { notes: optText(write.notes, "notes") } : {}),
    ...(write.links !== undefined ? { links: checkLinks(write.links) ?? null } : {}),
  };
}

export function checkComponentChanges(changes: {
  name?: string;
  description?: string;
  metadata?: Record<string, unknown>;
}): { name?: string; description?: string; metadata?: Record<string, unknown> } {
  const out: { name?: string; description?: string; metadata?: Record<string, unknown> } = {};
  if (changes.name !== undefined) out.name = optText(changes.name, "name") ?? undefined;
  if (changes.description !== undefined) out.description = optText(changes.description, "description") ?? undefined;
  if (changes.metadata !== undefined) out.metadata = checkConfig(changes.metadata, "metadata");
  return out;
}

/**
 * The catalog fields a published version owns (agno's project_config_identity): its `name` and
 * `description`, when the config carries them as text.
 */
export function projectConfigIdentity(config: Record<string, unknown>): { name?: string; description?: string } {
  const out: { name?: string; description?: string } = {};
  if (typeof config.name === "string" && config.name.trim() !== "") out.name = config.name;
  if (typeof config.description === "string") out.description = config.description;
  return out;
}

export const archivedError = (id: string) =>
  new ComponentArchivedError(`Component ${id} is archived; restore it explicitly before writing to it`);

export const latestConflict = (id: string, latest: number | null, expected: number) =>
  new ComponentVersionConflictError(
    `Component ${id} latest version is ${latest ?? "None"}, expected ${expected}`,
    latest,
  );

export const currentConflict = (id: string, current: number | null, expected: number) =>
  new ComponentVersionConflictError(
    `Component ${id} current version is ${current ?? "None"}, expected ${expected}`,
    current,
  );

/** The run endpoint a schedule aimed at this component calls (agno's RUN_ENDPOINT_RE shape). */
export const componentRunEndpoint = (type: ComponentType, id: string) => `/${type}s/${id}/runs`;
