import { BadRequestError, ComponentDependencyError, ComponentDraftRequiredError, NotFoundError } from "../../errors.js";
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
  type ConfigStage,
  type ConfigWrite,
  type ListComponentsOptions,
} from "../ports/component-store.js";
import type { Page } from "../types.js";
import { compareIds, componentKey, copy, now, stored, type MemoryTables, type StoredConfigRow } from "./tables.js";

const visibleTo = (row: ComponentRecord, userId: string | undefined): boolean =>
  userId === undefined ||
  row.user_id === userId ||
  row.user_id === null ||
  (row.current_version !== null && row.deleted_at === null);

const toConfig = (row: StoredConfigRow): ComponentConfigRecord => {
  const { deleted_at: _deleted, ...rest } = row;
  return copy(rest) as ComponentConfigRecord;
};

/**
 * agno's component catalog in memory, with the Postgres adapter's rules (the same contract
 * suite). Each write is synchronous inside `MemoryTables.transaction`, so it is atomic: nothing
 * interleaves with it, and a refusal puts every row back.
 */
export class MemoryComponentStore implements ComponentStore {
  constructor(private readonly t: MemoryTables) {}

  private configsOf(id: string): StoredConfigRow[] {
    return [...this.t.componentConfigs.values()].filter((c) => c.component_id === id);
  }

  private latestVisible(id: string): number | null {
    const versions = this.configsOf(id)
      .filter((c) => c.stage !== DELETED_CONFIG_STAGE)
      .map((c) => c.version);
    return versions.length ? Math.max(...versions) : null;
  }

  /** the component a write acts on: absent or another owner's is a 404, archived a 409 */
  private writable(id: string, userId: string | undefined): ComponentRecord {
    const row = this.t.components.get(id);
    if (!row || (userId !== undefined && row.user_id !== userId)) throw new NotFoundError(`Component ${id} not found`);
    if (row.deleted_at !== null) throw archivedError(id);
    return row;
  }

  /** Links must name existing children and must not lead back to the parent. */
  private checkLinks(parentId: string, links: ComponentLinkInput[]): void {
    for (const link of links) {
      if (!this.t.components.has(link.child_component_id))
        throw new BadRequestError(`Link child ${link.child_component_id} not found`);
      if (this.reaches(link.child_component_id, link.child_version, parentId))
        throw new ComponentDependencyError(
          `Linking ${parentId} to ${link.child_component_id} would close a reference cycle`,
        );
    }
  }

  private reaches(from: string, version: number | null, target: string, seen = new Set<string>()): boolean {
    if (from === target) return true;
    const v = version ?? this.t.components.get(from)?.current_version ?? null;
    if (v === null || seen.has(componentKey(from, v))) return false;
    seen.add(componentKey(from, v));
    return (this.t.componentLinks.get(componentKey(from, v)) ?? []).some((l) =>
      this.reaches(l.child_component_id, l.child_version, target, seen),
    );
  }

  private writeLinks(parentId: string, version: number, links: ComponentLinkInput[] | null | undefined): void {
    if (links === undefined) return;
    const rows: ComponentLink[] = (links ?? []).map((l) => ({
      parent_component_id: parentId,
      parent_version: version,
      link_kind: l.link_kind,
      link_key: l.link_key,
      child_component_id: l.child_component_id,
      child_version: l.child_version,
      position: l.position,
      meta: stored(l.meta ?? null),
    }));
    if (rows.length) this.t.componentLinks.set(componentKey(parentId, version), rows);
    else this.t.componentLinks.delete(componentKey(parentId, version));
  }

  /** A version about to be published pins only published versions of live children. */
  private checkPublishable(id: string, version: number): void {
    for (const link of this.t.componentLinks.get(componentKey(id, version)) ?? []) {
      const child = this.t.components.get(link.child_component_id);
      const stage =
        link.child_version === null
          ? undefined
          : this.t.componentConfigs.get(componentKey(link.child_component_id, link.child_version))?.stage;
      if (stage !== "published")
        throw new ComponentDependencyError(
          `Cannot publish ${id} v${version}: pinned ${link.link_kind} '${link.child_component_id}' v${link.child_version} is ${stage ?? "missing"}; publish the child first.`,
        );
      if (child?.deleted_at !== null)
        throw new ComponentDependencyError(
          `Cannot publish ${id} v${version}: pinned ${link.link_kind} '${link.child_component_id}' is archived; restore it first.`,
        );
    }
  }

  private makeCurrent(row: ComponentRecord, version: number, config: Record<string, unknown>): void {
    this.t.components.set(row.component_id, {
      ...row,
      ...projectConfigIdentity(config),
      current_version: version,
      updated_at: now(),
    });
  }

  private checkLabel(id: string, label: string | null | undefined, except?: number): void {
    if (label === undefined || label === null) return;
    if (this.configsOf(id).some((c) => c.label === label && c.stage !== DELETED_CONFIG_STAGE && c.version !== except))
      throw new BadRequestError(`Label '${label}' already exists for ${id}`);
  }

  async createComponentWithConfig(
    input: ComponentCreate,
  ): Promise<{ component: ComponentRecord; config: ComponentConfigRecord }> {
    const v = validateComponentCreate(input);
    return this.t.transaction(() => {
      const existing = this.t.components.get(v.component_id);
      if (existing?.deleted_at) throw archivedError(v.component_id);
      if (existing) throw new BadRequestError(`Component ID ${v.component_id} is not available`);
      const ts = now();
      const component: ComponentRecord = {
        component_id: v.component_id,
        component_type: v.component_type,
        name: v.name,
        user_id: v.user_id,
        description: v.description,
        current_version: null,
        metadata: stored(v.metadata),
        created_at: ts,
        updated_at: null,
        deleted_at: null,
      };
      this.t.components.set(v.component_id, component);
      if (v.links) this.checkLinks(v.component_id, v.links);
      const config: StoredConfigRow = {
        component_id: v.component_id,
        version: 1,
        label: v.label,
        stage: v.stage,
        config: stored(v.config),
        notes: v.notes,
        created_at: ts,
        updated_at: null,
        deleted_at: null,
      };
      this.t.componentConfigs.set(componentKey(v.component_id, 1), config);
      this.writeLinks(v.component_id, 1, v.links);
      if (v.stage === "published") {
        this.checkPublishable(v.component_id, 1);
        this.makeCurrent(component, 1, v.config);
      }
      return { component: copy(this.t.components.get(v.component_id)!), config: toConfig(config) };
    });
  }

  async getComponent(
    componentId: string,
    opts: { userId?: string; includeDeleted?: boolean; componentType?: ComponentType } = {},
  ): Promise<ComponentRecord | null> {
    checkComponentId(componentId);
    const row = this.t.components.get(componentId);
    if (!row) return null;
    if (row.deleted_at !== null && !opts.includeDeleted) return null;
    if (opts.componentType !== undefined && row.component_type !== opts.componentType) return null;
    if (!visibleTo(row, opts.userId)) return null;
    // An archived component is withdrawn from everyone but its owner (and admins), even with includeDeleted.
    if (row.deleted_at !== null && opts.userId !== undefined && row.user_id !== opts.userId && row.user_id !== null)
      return null;
    return copy(row);
  }

  async listComponents(opts: ListComponentsOptions = {}): Promise<Page<ComponentRecord>> {
    const page = resolvePage(opts);
    const excluded = new Set(opts.excludeIds ?? []);
    const rows = [...this.t.components.values()]
      .filter(
        (r) =>
          (opts.includeDeleted || r.deleted_at === null) &&
          (opts.componentType === undefined || r.component_type === opts.componentType) &&
          (opts.stage === undefined || (opts.stage === "published") === (r.current_version !== null)) &&
          !excluded.has(r.component_id) &&
          (opts.userId === undefined ||
            r.user_id === opts.userId ||
            r.user_id === null ||
            (r.current_version !== null && r.deleted_at === null)),
      )
      .sort((a, b) => b.created_at - a.created_at || compareIds(a.component_id, b.component_id));
    return pageOf(rows.slice(page.offset, page.offset + page.limit).map(copy), rows.length, page);
  }

  async updateComponent(
    componentId: string,
    changes: { name?: string; description?: string; metadata?: Record<string, unknown> },
    opts: ComponentWriteOptions = {},
  ): Promise<ComponentRecord | null> {
    checkComponentId(componentId);
    const c = checkComponentChanges(changes);
    return this.t.transaction(() => {
      const row = this.t.components.get(componentId);
      if (!row || (opts.userId !== undefined && row.user_id !== opts.userId)) return null;
      if (row.deleted_at !== null) throw archivedError(componentId);
      if (opts.expectedCurrentVersion !== undefined && row.current_version !== opts.expectedCurrentVersion)
        throw currentConflict(componentId, row.current_version, opts.expectedCurrentVersion);
      const next: ComponentRecord = {
        ...row,
        ...(c.name !== undefined ? { name: c.name } : {}),
        ...(c.description !== undefined ? { description: c.description } : {}),
        ...(c.metadata !== undefined ? { metadata: stored(c.metadata) } : {}),
        updated_at: now(),
      };
      this.t.components.set(componentId, next);
      return copy(next);
    });
  }

  /** links of live parents (their component live, their version not tombstoned) pointing at `id` */
  private liveDependents(id: string): ComponentLink[] {
    return [...this.t.componentLinks.values()]
      .flat()
      .filter(
        (l) =>
          l.child_component_id === id &&
          l.parent_component_id !== id &&
          this.t.components.get(l.parent_component_id)?.deleted_at === null &&
          this.t.componentConfigs.get(componentKey(l.parent_component_id, l.parent_version))?.stage !==
            DELETED_CONFIG_STAGE,
      );
  }

  async deleteComponent(
    componentId: string,
    opts: ComponentWriteOptions = {},
  ): Promise<{ archived: boolean; schedulesDisabled: number }> {
    checkComponentId(componentId);
    return this.t.transaction(() => {
      const row = this.t.components.get(componentId);
      if (!row || row.deleted_at !== null || (opts.userId !== undefined && row.user_id !== opts.userId))
        return { archived: false, schedulesDisabled: 0 };
      if (opts.expectedCurrentVersion !== undefined && row.current_version !== opts.expectedCurrentVersion)
        throw currentConflict(componentId, row.current_version, opts.expectedCurrentVersion);
      const parents = [...new Set(this.liveDependents(componentId).map((l) => l.parent_component_id))].sort();
      if (parents.length)
        throw new ComponentDependencyError(`Cannot delete ${componentId}: referenced by ${parents.join(", ")}`);
      const ts = now();
      this.t.components.set(componentId, { ...row, deleted_at: ts, updated_at: ts });
      const endpoint = componentRunEndpoint(row.component_type, componentId);
      let disabled = 0;
      for (const s of [...this.t.schedules.values()]) {
        const aimed = (s.target_type === row.component_type && s.target_id === componentId) || s.endpoint === endpoint;
        if (!aimed || !s.enabled) continue;
        this.t.schedules.set(s.id, {
          ...s,
          enabled: false,
          disabled_reason: `target_archived:${row.component_type}:${componentId}`,
          updated_at: ts,
        });
        disabled++;
      }
      return { archived: true, schedulesDisabled: disabled };
    });
  }

  async restoreComponent(componentId: string, opts: { userId?: string } = {}): Promise<boolean> {
    checkComponentId(componentId);
    return this.t.transaction(() => {
      const row = this.t.components.get(componentId);
      if (!row || row.deleted_at === null || (opts.userId !== undefined && row.user_id !== opts.userId)) return false;
      this.t.components.set(componentId, { ...row, deleted_at: null, updated_at: now() });
      return true;
    });
  }

  async listConfigs(componentId: string, opts: { includeConfig?: boolean } = {}): Promise<ComponentConfigRecord[]> {
    checkComponentId(componentId);
    return this.configsOf(componentId)
      .filter((c) => c.stage !== DELETED_CONFIG_STAGE)
      .sort((a, b) => b.version - a.version)
      .map((c) => (opts.includeConfig === false ? { ...toConfig(c), config: {} } : toConfig(c)));
  }

  async getConfig(componentId: string, version?: number): Promise<ComponentConfigRecord | null> {
    checkComponentId(componentId);
    const v = version === undefined ? this.t.components.get(componentId)?.current_version : checkVersion(version);
    if (v === undefined || v === null) return null;
    const row = this.t.componentConfigs.get(componentKey(componentId, v));
    return row && row.stage !== DELETED_CONFIG_STAGE ? toConfig(row) : null;
  }

  async createConfig(
    componentId: string,
    write: ConfigWrite,
    opts: ComponentWriteOptions = {},
  ): Promise<ComponentConfigRecord> {
    checkComponentId(componentId);
    const w = validateConfigWrite(write);
    if (w.config === undefined) throw new BadRequestError("config is required when creating a new version");
    return this.t.transaction(() => {
      const row = this.writable(componentId, opts.userId);
      if (opts.expectedLatestVersion !== undefined) {
        const latest = this.latestVisible(componentId);
        if (latest !== opts.expectedLatestVersion)
          throw latestConflict(componentId, latest, opts.expectedLatestVersion);
      }
      if (w.links) this.checkLinks(componentId, w.links);
      this.checkLabel(componentId, w.label);
      // Tombstones count: a number once used is never handed out again.
      const version = Math.max(0, ...this.configsOf(componentId).map((c) => c.version)) + 1;
      const ts = now();
      const config: StoredConfigRow = {
        component_id: componentId,
        version,
        label: w.label ?? null,
        stage: w.stage ?? "draft",
        config: stored(w.config!),
        notes: w.notes ?? null,
        created_at: ts,
        updated_at: null,
        deleted_at: null,
      };
      this.t.componentConfigs.set(componentKey(componentId, version), config);
      this.writeLinks(componentId, version, w.links);
      if (config.stage === "published") this.publish(row, version, config.config, opts);
      return toConfig(config);
    });
  }

  private publish(
    row: ComponentRecord,
    version: number,
    config: Record<string, unknown>,
    opts: ComponentWriteOptions,
  ): void {
    if (opts.expectedCurrentVersion !== undefined && row.current_version !== opts.expectedCurrentVersion)
      throw currentConflict(row.component_id, row.current_version, opts.expectedCurrentVersion);
    this.checkPublishable(row.component_id, version);
    this.makeCurrent(row, version, config);
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
    return this.t.transaction(() => {
      const row = this.writable(componentId, opts.userId);
      if (opts.expectedLatestVersion !== undefined) {
        const latest = this.latestVisible(componentId);
        if (latest !== opts.expectedLatestVersion)
          throw latestConflict(componentId, latest, opts.expectedLatestVersion);
      }
      const existing = this.t.componentConfigs.get(componentKey(componentId, version));
      if (!existing || existing.stage === DELETED_CONFIG_STAGE)
        throw new NotFoundError(`Config ${componentId} v${version} not found`);
      if (existing.stage === "published")
        throw new ComponentDraftRequiredError(`Cannot update published config ${componentId} v${version}`);
      if (w.links) this.checkLinks(componentId, w.links);
      this.checkLabel(componentId, w.label, version);
      const next: StoredConfigRow = {
        ...existing,
        ...(w.label !== undefined ? { label: w.label } : {}),
        ...(w.stage !== undefined ? { stage: w.stage } : {}),
        ...(w.config !== undefined ? { config: stored(w.config) } : {}),
        ...(w.notes !== undefined ? { notes: w.notes } : {}),
        updated_at: now(),
      };
      this.t.componentConfigs.set(componentKey(componentId, version), next);
      this.writeLinks(componentId, version, w.links);
      if ((next.stage as ConfigStage) === "published") this.publish(row, version, next.config, opts);
      return toConfig(next);
    });
  }

  async deleteConfig(componentId: string, version: number, opts: { userId?: string } = {}): Promise<boolean> {
    checkComponentId(componentId);
    checkVersion(version);
    return this.t.transaction(() => {
      const row = this.t.components.get(componentId);
      if (!row || (opts.userId !== undefined && row.user_id !== opts.userId)) return false;
      if (row.deleted_at !== null) throw archivedError(componentId);
      const existing = this.t.componentConfigs.get(componentKey(componentId, version));
      if (!existing || existing.stage === DELETED_CONFIG_STAGE) return false;
      if (existing.stage === "published" || row.current_version === version)
        throw new ComponentDraftRequiredError(
          `Cannot delete published config ${componentId} v${version}; only drafts are deletable`,
        );
      if (this.configsOf(componentId).filter((c) => c.stage !== DELETED_CONFIG_STAGE).length <= 1)
        throw new ComponentDependencyError(
          `Cannot delete ${componentId} v${version}: a component keeps at least one config version`,
        );
      const pinned = this.liveDependents(componentId).filter((l) => l.child_version === version);
      if (pinned.length)
        throw new ComponentDependencyError(
          `Cannot delete ${componentId} v${version}: pinned by ${[...new Set(pinned.map((l) => l.parent_component_id))].sort().join(", ")}`,
        );
      const ts = now();
      this.t.componentConfigs.set(componentKey(componentId, version), {
        ...existing,
        stage: DELETED_CONFIG_STAGE,
        deleted_at: ts,
        updated_at: ts,
      });
      this.t.componentLinks.delete(componentKey(componentId, version));
      return true;
    });
  }

  async setCurrentVersion(componentId: string, version: number, opts: ComponentWriteOptions = {}): Promise<boolean> {
    checkComponentId(componentId);
    checkVersion(version);
    return this.t.transaction(() => {
      const row = this.t.components.get(componentId);
      if (!row || (opts.userId !== undefined && row.user_id !== opts.userId)) return false;
      if (row.deleted_at !== null) throw archivedError(componentId);
      if (opts.expectedCurrentVersion !== undefined && row.current_version !== opts.expectedCurrentVersion)
        throw currentConflict(componentId, row.current_version, opts.expectedCurrentVersion);
      const config = this.t.componentConfigs.get(componentKey(componentId, version));
      if (!config) return false;
      if (config.stage === DELETED_CONFIG_STAGE)
        throw new BadRequestError(`Cannot set deleted config ${componentId} v${version} as current`);
      if (config.stage !== "published")
        throw new BadRequestError(
          `Cannot set draft config ${componentId} v${version} as current. Only published configs can be current.`,
        );
      this.checkPublishable(componentId, version);
      this.makeCurrent(row, version, config.config);
      return true;
    });
  }

  async getLinks(componentId: string, version: number): Promise<ComponentLink[]> {
    checkComponentId(componentId);
    checkVersion(version);
    return copy(this.t.componentLinks.get(componentKey(componentId, version)) ?? []);
  }

  async getDependents(componentId: string): Promise<ComponentLink[]> {
    checkComponentId(componentId);
    return copy(this.liveDependents(componentId));
  }
}
