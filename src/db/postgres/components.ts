import { sql, type SQL } from "drizzle-orm";
import { BadRequestError, ComponentDependencyError, ComponentDraftRequiredError, NotFoundError } from "../../errors.js";
import { pgJson } from "../../json-limits.js";
import { nowSeconds as now } from "../../time.js";
import {
  archivedError,
  checkComponentChanges,
  checkComponentId,
  checkVersion,
  componentRunEndpoint,
  currentConflict,
  latestConflict,
  projectConfigIdentity,
  validateComponentCreate,
  validateConfigWrite,
} from "../component-rules.js";
import { pageOf, resolvePage } from "../pagination.js";
import {
  DELETED_CONFIG_STAGE,
  type ComponentConfigRecord,
  type ComponentCreate,
  type ComponentLink,
  type ComponentLinkInput,
  type ComponentRecord,
  type ComponentStore,
  type ComponentType,
  type ComponentWriteOptions,
  type ConfigWrite,
  type ListComponentsOptions,
} from "../ports/component-store.js";
import type { Page } from "../types.js";
import type { Exec } from "./schema-state.js";

/** What the catalog needs of its PostgresDb. */
export interface ComponentTables {
  exec: Exec;
  transaction<T>(fn: (exec: Exec) => Promise<T>): Promise<T>;
  ready(): Promise<void>;
  components: SQL;
  configs: SQL;
  links: SQL;
  schedules: SQL;
}

const COMPONENT_COLUMNS =
  "component_id, component_type, name, user_id, description, current_version, metadata, created_at, updated_at, deleted_at";
const CONFIG_COLUMNS = "component_id, version, label, stage, config, notes, created_at, updated_at";
const LINK_COLUMNS =
  "parent_component_id, parent_version, link_kind, link_key, child_component_id, child_version, position, meta";

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const int = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const json = (v: unknown) => (v === null || v === undefined ? null : pgJson(v));

function toComponent(row: Record<string, unknown>): ComponentRecord {
  return {
    component_id: String(row.component_id),
    component_type: String(row.component_type) as ComponentType,
    name: text(row.name),
    user_id: text(row.user_id),
    description: text(row.description),
    current_version: int(row.current_version),
    metadata: (row.metadata as Record<string, unknown> | null) ?? null,
    created_at: Number(row.created_at),
    updated_at: int(row.updated_at),
    deleted_at: int(row.deleted_at),
  };
}

function toConfig(row: Record<string, unknown>): ComponentConfigRecord {
  return {
    component_id: String(row.component_id),
    version: Number(row.version),
    label: text(row.label),
    stage: String(row.stage) as ComponentConfigRecord["stage"],
    config: (row.config as Record<string, unknown> | null) ?? {},
    notes: text(row.notes),
    created_at: Number(row.created_at),
    updated_at: int(row.updated_at),
  };
}

function toLink(row: Record<string, unknown>): ComponentLink {
  return {
    parent_component_id: String(row.parent_component_id),
    parent_version: Number(row.parent_version),
    link_kind: String(row.link_kind),
    link_key: String(row.link_key),
    child_component_id: String(row.child_component_id),
    child_version: int(row.child_version),
    position: Number(row.position),
    meta: (row.meta as Record<string, unknown> | null) ?? null,
  };
}

/** Catalog visibility for a scoped caller: own rows, shared rows, and every live published component. */
const visible = (userId: string | undefined): SQL =>
  userId === undefined
    ? sql`TRUE`
    : sql`(user_id = ${userId} OR user_id IS NULL OR (current_version IS NOT NULL AND deleted_at IS NULL))`;

/**
 * agno's component catalog on Postgres (`db.components`). Every write is one transaction that
 * first locks the component's row (`FOR UPDATE`), so writers of one component serialise: a
 * guarded write reads the state it is checked against under the lock, and two appends cannot
 * take one version number.
 */
export class PostgresComponentStore implements ComponentStore {
  constructor(private readonly d: ComponentTables) {}

  private async lock(exec: Exec, id: string): Promise<ComponentRecord | null> {
    const [row] = await exec(
      sql`SELECT ${sql.raw(COMPONENT_COLUMNS)} FROM ${this.d.components} WHERE component_id = ${id} FOR UPDATE`,
    );
    return row ? toComponent(row) : null;
  }

  private async writable(exec: Exec, id: string, userId: string | undefined): Promise<ComponentRecord> {
    const row = await this.lock(exec, id);
    if (!row || (userId !== undefined && row.user_id !== userId)) throw new NotFoundError(`Component ${id} not found`);
    if (row.deleted_at !== null) throw archivedError(id);
    return row;
  }

  private async latestVisible(exec: Exec, id: string): Promise<number | null> {
    const [row] = await exec(sql`SELECT MAX(version) AS v FROM ${this.d.configs}
      WHERE component_id = ${id} AND stage <> ${DELETED_CONFIG_STAGE}`);
    return int(row?.v);
  }

  private async checkLinks(exec: Exec, parentId: string, links: ComponentLinkInput[]): Promise<void> {
    for (const link of links) {
      const [child] = await exec(
        sql`SELECT 1 FROM ${this.d.components} WHERE component_id = ${link.child_component_id}`,
      );
      if (!child) throw new BadRequestError(`Link child ${link.child_component_id} not found`);
      // Would the child's pinned version (or its current one) lead back to the parent?
      const [cycle] = await exec(sql`
        WITH RECURSIVE reach(id, version) AS (
          SELECT ${link.child_component_id}::varchar, ${link.child_version}::int
          UNION
          SELECT l.child_component_id, COALESCE(l.child_version, c.current_version)
          FROM reach r JOIN ${this.d.links} l ON l.parent_component_id = r.id AND l.parent_version = r.version
          LEFT JOIN ${this.d.components} c ON c.component_id = l.child_component_id
        )
        SELECT 1 FROM reach WHERE id = ${parentId} LIMIT 1`);
      if (cycle)
        throw new ComponentDependencyError(
          `Linking ${parentId} to ${link.child_component_id} would close a reference cycle`,
        );
    }
  }

  private async writeLinks(
    exec: Exec,
    parentId: string,
    version: number,
    links: ComponentLinkInput[] | null | undefined,
  ): Promise<void> {
    if (links === undefined) return;
    await exec(
      sql`DELETE FROM ${this.d.links} WHERE parent_component_id = ${parentId} AND parent_version = ${version}`,
    );
    const ts = now();
    for (const l of links ?? []) {
      await exec(sql`INSERT INTO ${this.d.links} (${sql.raw(LINK_COLUMNS)}, created_at, updated_at)
        VALUES (${parentId}, ${version}, ${l.link_kind}, ${l.link_key}, ${l.child_component_id}, ${l.child_version},
          ${l.position}, ${json(l.meta)}::jsonb, ${ts}, ${ts})`);
    }
  }

  private async checkPublishable(exec: Exec, id: string, version: number): Promise<void> {
    const rows = await exec(sql`
      SELECT l.link_kind, l.child_component_id, l.child_version, cc.stage, c.deleted_at
      FROM ${this.d.links} l
      LEFT JOIN ${this.d.configs} cc ON cc.component_id = l.child_component_id AND cc.version = l.child_version
      LEFT JOIN ${this.d.components} c ON c.component_id = l.child_component_id
      WHERE l.parent_component_id = ${id} AND l.parent_version = ${version}`);
    for (const r of rows) {
      if (r.stage !== "published")
        throw new ComponentDependencyError(
          `Cannot publish ${id} v${version}: pinned ${String(r.link_kind)} '${String(r.child_component_id)}' v${String(r.child_version)} is ${text(r.stage) ?? "missing"}; publish the child first.`,
        );
      if (r.deleted_at !== null)
        throw new ComponentDependencyError(
          `Cannot publish ${id} v${version}: pinned ${String(r.link_kind)} '${String(r.child_component_id)}' is archived; restore it first.`,
        );
    }
  }

  private async publish(
    exec: Exec,
    row: ComponentRecord,
    version: number,
    config: Record<string, unknown>,
    opts: ComponentWriteOptions,
  ): Promise<void> {
    if (opts.expectedCurrentVersion !== undefined && row.current_version !== opts.expectedCurrentVersion)
      throw currentConflict(row.component_id, row.current_version, opts.expectedCurrentVersion);
    await this.checkPublishable(exec, row.component_id, version);
    const identity = projectConfigIdentity(config);
    await exec(sql`UPDATE ${this.d.components} SET current_version = ${version}, updated_at = ${now()},
      name = COALESCE(${identity.name ?? null}, name), description = COALESCE(${identity.description ?? null}, description)
      WHERE component_id = ${row.component_id}`);
  }

  private async checkLabel(exec: Exec, id: string, label: string | null | undefined, except = 0): Promise<void> {
    if (label === undefined || label === null) return;
    const [hit] = await exec(sql`SELECT 1 FROM ${this.d.configs} WHERE component_id = ${id} AND label = ${label}
      AND stage <> ${DELETED_CONFIG_STAGE} AND version <> ${except}`);
    if (hit) throw new BadRequestError(`Label '${label}' already exists for ${id}`);
  }

  async createComponentWithConfig(
    input: ComponentCreate,
  ): Promise<{ component: ComponentRecord; config: ComponentConfigRecord }> {
    const v = validateComponentCreate(input);
    await this.d.ready();
    return this.d.transaction(async (exec) => {
      const ts = now();
      const [inserted] = await exec(sql`INSERT INTO ${this.d.components} (${sql.raw(COMPONENT_COLUMNS)})
        VALUES (${v.component_id}, ${v.component_type}, ${v.name}, ${v.user_id}, ${v.description}, NULL,
          ${json(v.metadata)}::jsonb, ${ts}, NULL, NULL)
        ON CONFLICT (component_id) DO NOTHING RETURNING component_id`);
      if (!inserted) {
        const existing = await this.lock(exec, v.component_id);
        if (existing?.deleted_at !== null && existing?.deleted_at !== undefined) throw archivedError(v.component_id);
        throw new BadRequestError(`Component ID ${v.component_id} is not available`);
      }
      if (v.links) await this.checkLinks(exec, v.component_id, v.links);
      const [config] = await exec(sql`INSERT INTO ${this.d.configs} (${sql.raw(CONFIG_COLUMNS)})
        VALUES (${v.component_id}, 1, ${v.label}, ${v.stage}, ${pgJson(v.config)}::jsonb, ${v.notes}, ${ts}, NULL)
        RETURNING ${sql.raw(CONFIG_COLUMNS)}`);
      await this.writeLinks(exec, v.component_id, 1, v.links);
      if (v.stage === "published") {
        const row = (await this.lock(exec, v.component_id))!;
        await this.publish(exec, row, 1, v.config, {});
      }
      return { component: (await this.lock(exec, v.component_id))!, config: toConfig(config!) };
    });
  }

  async getComponent(
    componentId: string,
    opts: { userId?: string; includeDeleted?: boolean; componentType?: ComponentType } = {},
  ): Promise<ComponentRecord | null> {
    checkComponentId(componentId);
    await this.d.ready();
    const [row] = await this.d.exec(sql`SELECT ${sql.raw(COMPONENT_COLUMNS)} FROM ${this.d.components}
      WHERE component_id = ${componentId}
      ${opts.includeDeleted ? sql`` : sql`AND deleted_at IS NULL`}
      ${opts.componentType === undefined ? sql`` : sql`AND component_type = ${opts.componentType}`}
      AND ${visible(opts.userId)}
      ${
        opts.userId === undefined ? sql`` : sql`AND (deleted_at IS NULL OR user_id = ${opts.userId} OR user_id IS NULL)`
      }`);
    return row ? toComponent(row) : null;
  }

  async listComponents(opts: ListComponentsOptions = {}): Promise<Page<ComponentRecord>> {
    const page = resolvePage(opts);
    await this.d.ready();
    const parts: SQL[] = [visible(opts.userId)];
    if (!opts.includeDeleted) parts.push(sql`deleted_at IS NULL`);
    if (opts.componentType !== undefined) parts.push(sql`component_type = ${opts.componentType}`);
    if (opts.stage === "published") parts.push(sql`current_version IS NOT NULL`);
    if (opts.stage === "draft") parts.push(sql`current_version IS NULL`);
    if (opts.excludeIds?.length)
      parts.push(
        sql`component_id NOT IN (${sql.join(
          opts.excludeIds.map((id) => sql`${id}`),
          sql`, `,
        )})`,
      );
    const where = sql.join(parts, sql` AND `);
    const rows = await this.d.exec(sql`SELECT ${sql.raw(COMPONENT_COLUMNS)}, COUNT(*) OVER () AS total_count
      FROM ${this.d.components} WHERE ${where}
      ORDER BY created_at DESC, component_id LIMIT ${page.limit} OFFSET ${page.offset}`);
    let total = rows.length > 0 ? Number(rows[0]!.total_count) : 0;
    if (rows.length === 0 && page.offset > 0) {
      const [n] = await this.d.exec(sql`SELECT COUNT(*) AS n FROM ${this.d.components} WHERE ${where}`);
      total = Number(n?.n ?? 0);
    }
    return pageOf(rows.map(toComponent), total, page);
  }

  async updateComponent(
    componentId: string,
    changes: { name?: string; description?: string; metadata?: Record<string, unknown> },
    opts: ComponentWriteOptions = {},
  ): Promise<ComponentRecord | null> {
    checkComponentId(componentId);
    const c = checkComponentChanges(changes);
    await this.d.ready();
    return this.d.transaction(async (exec) => {
      const row = await this.lock(exec, componentId);
      if (!row || (opts.userId !== undefined && row.user_id !== opts.userId)) return null;
      if (row.deleted_at !== null) throw archivedError(componentId);
      if (opts.expectedCurrentVersion !== undefined && row.current_version !== opts.expectedCurrentVersion)
        throw currentConflict(componentId, row.current_version, opts.expectedCurrentVersion);
      const [updated] = await exec(sql`UPDATE ${this.d.components} SET updated_at = ${now()}
        ${c.name !== undefined ? sql`, name = ${c.name}` : sql``}
        ${c.description !== undefined ? sql`, description = ${c.description}` : sql``}
        ${c.metadata !== undefined ? sql`, metadata = ${pgJson(c.metadata)}::jsonb` : sql``}
        WHERE component_id = ${componentId} RETURNING ${sql.raw(COMPONENT_COLUMNS)}`);
      return toComponent(updated!);
    });
  }

  private liveDependentsQuery(id: string): SQL {
    return sql`SELECT ${sql.raw(LINK_COLUMNS.replace(/(\w+)/g, "l.$1"))} FROM ${this.d.links} l
      JOIN ${this.d.components} p ON p.component_id = l.parent_component_id AND p.deleted_at IS NULL
      JOIN ${this.d.configs} pc ON pc.component_id = l.parent_component_id AND pc.version = l.parent_version
        AND pc.stage <> ${DELETED_CONFIG_STAGE}
      WHERE l.child_component_id = ${id} AND l.parent_component_id <> ${id}`;
  }

  async deleteComponent(
    componentId: string,
    opts: ComponentWriteOptions = {},
  ): Promise<{ archived: boolean; schedulesDisabled: number }> {
    checkComponentId(componentId);
    await this.d.ready();
    return this.d.transaction(async (exec) => {
      const row = await this.lock(exec, componentId);
      if (!row || row.deleted_at !== null || (opts.userId !== undefined && row.user_id !== opts.userId))
        return { archived: false, schedulesDisabled: 0 };
      if (opts.expectedCurrentVersion !== undefined && row.current_version !== opts.expectedCurrentVersion)
        throw currentConflict(componentId, row.current_version, opts.expectedCurrentVersion);
      const dependents = (await exec(this.liveDependentsQuery(componentId))).map(toLink);
      const parents = [...new Set(dependents.map((l) => l.parent_component_id))].sort();
      if (parents.length)
        throw new ComponentDependencyError(`Cannot delete ${componentId}: referenced by ${parents.join(", ")}`);
      const ts = now();
      await exec(sql`UPDATE ${this.d.components} SET deleted_at = ${ts}, updated_at = ${ts}
        WHERE component_id = ${componentId}`);
      const disabled = await exec(sql`UPDATE ${this.d.schedules} SET enabled = FALSE, updated_at = ${ts},
          disabled_reason = ${`target_archived:${row.component_type}:${componentId}`}
        WHERE enabled AND ((target_type = ${row.component_type} AND target_id = ${componentId})
          OR endpoint = ${componentRunEndpoint(row.component_type, componentId)})
        RETURNING id`);
      return { archived: true, schedulesDisabled: disabled.length };
    });
  }

  async restoreComponent(componentId: string, opts: { userId?: string } = {}): Promise<boolean> {
    checkComponentId(componentId);
    await this.d.ready();
    const rows = await this.d.exec(sql`UPDATE ${this.d.components} SET deleted_at = NULL, updated_at = ${now()}
      WHERE component_id = ${componentId} AND deleted_at IS NOT NULL
      ${opts.userId === undefined ? sql`` : sql`AND user_id = ${opts.userId}`} RETURNING component_id`);
    return rows.length > 0;
  }

  async listConfigs(componentId: string, opts: { includeConfig?: boolean } = {}): Promise<ComponentConfigRecord[]> {
    checkComponentId(componentId);
    await this.d.ready();
    const rows = await this.d.exec(sql`SELECT ${sql.raw(CONFIG_COLUMNS)} FROM ${this.d.configs}
      WHERE component_id = ${componentId} AND stage <> ${DELETED_CONFIG_STAGE} ORDER BY version DESC`);
    return rows.map((r) => (opts.includeConfig === false ? { ...toConfig(r), config: {} } : toConfig(r)));
  }

  async getConfig(componentId: string, version?: number): Promise<ComponentConfigRecord | null> {
    checkComponentId(componentId);
    if (version !== undefined) checkVersion(version);
    await this.d.ready();
    const which =
      version === undefined
        ? sql`version = (SELECT current_version FROM ${this.d.components} WHERE component_id = ${componentId})`
        : sql`version = ${version}`;
    const [row] = await this.d.exec(sql`SELECT ${sql.raw(CONFIG_COLUMNS)} FROM ${this.d.configs}
      WHERE component_id = ${componentId} AND ${which} AND stage <> ${DELETED_CONFIG_STAGE}`);
    return row ? toConfig(row) : null;
  }

  async createConfig(
    componentId: string,
    write: ConfigWrite,
    opts: ComponentWriteOptions = {},
  ): Promise<ComponentConfigRecord> {
    checkComponentId(componentId);
    const w = validateConfigWrite(write);
    if (w.config === undefined) throw new BadRequestError("config is required when creating a new version");
    await this.d.ready();
    return this.d.transaction(async (exec) => {
      const row = await this.writable(exec, componentId, opts.userId);
      if (opts.expectedLatestVersion !== undefined) {
        const latest = await this.latestVisible(exec, componentId);
        if (latest !== opts.expectedLatestVersion)
          throw latestConflict(componentId, latest, opts.expectedLatestVersion);
      }
      if (w.links) await this.checkLinks(exec, componentId, w.links);
      await this.checkLabel(exec, componentId, w.label);
      const stage = w.stage ?? "draft";
      // MAX over every row, tombstones included: a number once used is never handed out again.
      const [config] = await exec(sql`INSERT INTO ${this.d.configs} (${sql.raw(CONFIG_COLUMNS)})
        SELECT ${componentId}, COALESCE(MAX(version), 0) + 1, ${w.label ?? null}, ${stage},
          ${pgJson(w.config)}::jsonb, ${w.notes ?? null}, ${now()}, NULL
        FROM ${this.d.configs} WHERE component_id = ${componentId}
        RETURNING ${sql.raw(CONFIG_COLUMNS)}`);
      const created = toConfig(config!);
      await this.writeLinks(exec, componentId, created.version, w.links);
      if (stage === "published") await this.publish(exec, row, created.version, created.config, opts);
      return created;
    });
  }

  async updateConfig(
    componentId: string,
    version: number,
    write: ConfigWrite,
    opts: ComponentWriteOptions = {},
  ): Promise<ComponentConfigRecord> {
    checkComponentId(componentId);
    checkVersion(version);
    const w = validateConfigWrite(write);
    await this.d.ready();
    return this.d.transaction(async (exec) => {
      const row = await this.writable(exec, componentId, opts.userId);
      if (opts.expectedLatestVersion !== undefined) {
        const latest = await this.latestVisible(exec, componentId);
        if (latest !== opts.expectedLatestVersion)
          throw latestConflict(componentId, latest, opts.expectedLatestVersion);
      }
      const [existing] = await exec(sql`SELECT stage FROM ${this.d.configs}
        WHERE component_id = ${componentId} AND version = ${version}`);
      if (!existing || existing.stage === DELETED_CONFIG_STAGE)
        throw new NotFoundError(`Config ${componentId} v${version} not found`);
      if (existing.stage === "published")
        throw new ComponentDraftRequiredError(`Cannot update published config ${componentId} v${version}`);
      if (w.links) await this.checkLinks(exec, componentId, w.links);
      await this.checkLabel(exec, componentId, w.label, version);
      const [updated] = await exec(sql`UPDATE ${this.d.configs} SET updated_at = ${now()}
        ${w.label !== undefined ? sql`, label = ${w.label}` : sql``}
        ${w.stage !== undefined ? sql`, stage = ${w.stage}` : sql``}
        ${w.config !== undefined ? sql`, config = ${pgJson(w.config)}::jsonb` : sql``}
        ${w.notes !== undefined ? sql`, notes = ${w.notes}` : sql``}
        WHERE component_id = ${componentId} AND version = ${version} RETURNING ${sql.raw(CONFIG_COLUMNS)}`);
      const config = toConfig(updated!);
      await this.writeLinks(exec, componentId, version, w.links);
      if (config.stage === "published") await this.publish(exec, row, version, config.config, opts);
      return config;
    });
  }

  async deleteConfig(componentId: string, version: number, opts: { userId?: string } = {}): Promise<boolean> {
    checkComponentId(componentId);
    checkVersion(version);
    await this.d.ready();
    return this.d.transaction(async (exec) => {
      const row = await this.lock(exec, componentId);
      if (!row || (opts.userId !== undefined && row.user_id !== opts.userId)) return false;
      if (row.deleted_at !== null) throw archivedError(componentId);
      const [existing] = await exec(sql`SELECT stage FROM ${this.d.configs}
        WHERE component_id = ${componentId} AND version = ${version}`);
      if (!existing || existing.stage === DELETED_CONFIG_STAGE) return false;
      if (existing.stage === "published" || row.current_version === version)
        throw new ComponentDraftRequiredError(
          `Cannot delete published config ${componentId} v${version}; only drafts are deletable`,
        );
      const [count] = await exec(sql`SELECT COUNT(*) AS n FROM ${this.d.configs}
        WHERE component_id = ${componentId} AND stage <> ${DELETED_CONFIG_STAGE}`);
      if (Number(count?.n) <= 1)
        throw new ComponentDependencyError(
          `Cannot delete ${componentId} v${version}: a component keeps at least one config version`,
        );
      const pinned = (await exec(this.liveDependentsQuery(componentId)))
        .map(toLink)
        .filter((l) => l.child_version === version);
      if (pinned.length)
        throw new ComponentDependencyError(
          `Cannot delete ${componentId} v${version}: pinned by ${[...new Set(pinned.map((l) => l.parent_component_id))].sort().join(", ")}`,
        );
      const ts = now();
      await exec(sql`UPDATE ${this.d.configs} SET stage = ${DELETED_CONFIG_STAGE}, deleted_at = ${ts}, updated_at = ${ts}
        WHERE component_id = ${componentId} AND version = ${version}`);
      await exec(
        sql`DELETE FROM ${this.d.links} WHERE parent_component_id = ${componentId} AND parent_version = ${version}`,
      );
      return true;
    });
  }

  async setCurrentVersion(componentId: string, version: number, opts: ComponentWriteOptions = {}): Promise<boolean> {
    checkComponentId(componentId);
    checkVersion(version);
    await this.d.ready();
    return this.d.transaction(async (exec) => {
      const row = await this.lock(exec, componentId);
      if (!row || (opts.userId !== undefined && row.user_id !== opts.userId)) return false;
      if (row.deleted_at !== null) throw archivedError(componentId);
      if (opts.expectedCurrentVersion !== undefined && row.current_version !== opts.expectedCurrentVersion)
        throw currentConflict(componentId, row.current_version, opts.expectedCurrentVersion);
      const [config] = await exec(sql`SELECT stage, config FROM ${this.d.configs}
        WHERE component_id = ${componentId} AND version = ${version}`);
      if (!config) return false;
      if (config.stage === DELETED_CONFIG_STAGE)
        throw new BadRequestError(`Cannot set deleted config ${componentId} v${version} as current`);
      if (config.stage !== "published")
        throw new BadRequestError(
          `Cannot set draft config ${componentId} v${version} as current. Only published configs can be current.`,
        );
      await this.publish(exec, row, version, (config.config as Record<string, unknown>) ?? {}, {});
      return true;
    });
  }

  async getLinks(componentId: string, version: number): Promise<ComponentLink[]> {
    checkComponentId(componentId);
    checkVersion(version);
    await this.d.ready();
    const rows = await this.d.exec(sql`SELECT ${sql.raw(LINK_COLUMNS)} FROM ${this.d.links}
      WHERE parent_component_id = ${componentId} AND parent_version = ${version} ORDER BY position, link_key`);
    return rows.map(toLink);
  }

  async getDependents(componentId: string): Promise<ComponentLink[]> {
    checkComponentId(componentId);
    await this.d.ready();
    return (await this.d.exec(this.liveDependentsQuery(componentId))).map(toLink);
  }
}
