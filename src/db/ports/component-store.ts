import type { Page } from "../types.js";

/** What a component is: agno's ComponentType. */
export type ComponentType = "agent" | "team" | "workflow";
export const COMPONENT_TYPES: readonly ComponentType[] = ["agent", "team", "workflow"];

/** A config version's stage: editable `draft`, immutable `published` (`_deleted` is a tombstone no read returns). */
export type ConfigStage = "draft" | "published";
/** The stage that marks a version deleted without freeing its number (agno's DELETED_CONFIG_STAGE). */
export const DELETED_CONFIG_STAGE = "_deleted";

/** One row of agno's `components`: the catalog entry; `current_version` is the published version runs use. */
export interface ComponentRecord {
  component_id: string;
  component_type: ComponentType;
  name: string | null;
  /** the owner; null for a shared component only admins write */
  user_id: string | null;
  description: string | null;
  current_version: number | null;
  metadata: Record<string, unknown> | null;
  /** epoch seconds */
  created_at: number;
  updated_at: number | null;
  /** set on an archived component (its id stays reserved) */
  deleted_at: number | null;
}

/** One row of agno's `component_configs`: a numbered version of a component's config. */
export interface ComponentConfigRecord {
  component_id: string;
  version: number;
  label: string | null;
  stage: ConfigStage;
  config: Record<string, unknown>;
  notes: string | null;
  created_at: number;
  updated_at: number | null;
}

/** One row of agno's `component_links`: a parent version pinning a child component (a team's member, a workflow's step). */
export interface ComponentLink {
  parent_component_id: string;
  parent_version: number;
  /** `member`, `step`, … */
  link_kind: string;
  link_key: string;
  child_component_id: string;
  child_version: number | null;
  position: number;
  meta: Record<string, unknown> | null;
}

/** A link as a write names it: the parent is the version being written. */
export type ComponentLinkInput = Omit<ComponentLink, "parent_component_id" | "parent_version" | "meta"> & {
  meta?: Record<string, unknown> | null;
};

/** A new component with its first config version (agno's create_component_with_config). */
export interface ComponentCreate {
  component_id: string;
  component_type: ComponentType;
  name: string;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
  /** the owner; null or absent: shared */
  user_id?: string | null;
  config: Record<string, unknown>;
  label?: string | null;
  /** default `draft`; `published` makes version 1 current */
  stage?: ConfigStage;
  notes?: string | null;
  links?: ComponentLinkInput[] | null;
}

/** A new config version or the changes to a draft. */
export interface ConfigWrite {
  config?: Record<string, unknown>;
  label?: string | null;
  stage?: ConfigStage;
  notes?: string | null;
  /** the version's links; absent leaves them as stored, `[]` clears them */
  links?: ComponentLinkInput[] | null;
}

/**
 * Who writes, and what they read: `userId` scopes the write to the owner's component (another
 * owner's answers as absent); `expectedLatestVersion` / `expectedCurrentVersion` are agno's
 * compare-and-set guard, refused with ComponentVersionConflictError when the stored state moved.
 */
export interface ComponentWriteOptions {
  userId?: string;
  expectedLatestVersion?: number;
  expectedCurrentVersion?: number;
}

export interface ListComponentsOptions {
  componentType?: ComponentType;
  /** `published`: components with a current version; `draft`: components without one */
  stage?: ConfigStage;
  /** also list archived components (marked by `deleted_at`) */
  includeDeleted?: boolean;
  /** what this user may see: their own, the shared, and every published live one */
  userId?: string;
  /** ids left out (code-defined components shadow stored rows of their id) */
  excludeIds?: string[];
  limit?: number;
  page?: number;
}

/**
 * agno 3.0's component catalog (`components`, `component_configs`, `component_links`), reached as
 * `db.components`. Every write runs in one transaction that locks the component's row, so a
 * guarded write either sees the state its caller read or fails with a typed 409; version numbers
 * only ever grow; an archived component's id stays reserved; archiving disables the schedules
 * aimed at it in the same transaction. Reads never write.
 */
export interface ComponentStore {
  /** ConflictError-typed refusals: BadRequestError when the id is taken, ComponentArchivedError when it is archived. */
  createComponentWithConfig(
    input: ComponentCreate,
  ): Promise<{ component: ComponentRecord; config: ComponentConfigRecord }>;
  /** With `userId`, only a component that user may see (own, shared, or published and live). */
  getComponent(
    componentId: string,
    opts?: { userId?: string; includeDeleted?: boolean; componentType?: ComponentType },
  ): Promise<ComponentRecord | null>;
  listComponents(opts?: ListComponentsOptions): Promise<Page<ComponentRecord>>;
  /** name, description and metadata; null when the component is absent or not the caller's */
  updateComponent(
    componentId: string,
    changes: { name?: string; description?: string; metadata?: Record<string, unknown> },
    opts?: ComponentWriteOptions,
  ): Promise<ComponentRecord | null>;
  /**
   * Archives (tombstones) a live component and disables the schedules aimed at it, together.
   * ComponentDependencyError when a live component links to it; false when absent or not the caller's.
   */
  deleteComponent(
    componentId: string,
    opts?: ComponentWriteOptions,
  ): Promise<{ archived: boolean; schedulesDisabled: number }>;
  /** false when there is no archived component of this id the caller owns */
  restoreComponent(componentId: string, opts?: { userId?: string }): Promise<boolean>;
  /** the visible versions, newest first */
  listConfigs(componentId: string, opts?: { includeConfig?: boolean }): Promise<ComponentConfigRecord[]>;
  /** a version, or the current one when `version` is absent; never a tombstone */
  getConfig(componentId: string, version?: number): Promise<ComponentConfigRecord | null>;
  /** Appends the next version (never a reused number); published moves `current_version` to it. */
  createConfig(componentId: string, write: ConfigWrite, opts?: ComponentWriteOptions): Promise<ComponentConfigRecord>;
  /** Changes a draft (a published version is immutable: ComponentDraftRequiredError); publishing makes it current. */
  updateConfig(
    componentId: string,
    version: number,
    write: ConfigWrite,
    opts?: ComponentWriteOptions,
  ): Promise<ComponentConfigRecord>;
  /** Tombstones a draft; its number is never reused. False when absent. */
  deleteConfig(componentId: string, version: number, opts?: { userId?: string }): Promise<boolean>;
  /** Moves `current_version` to a published version (rollback); false when the component or version is absent. */
  setCurrentVersion(componentId: string, version: number, opts?: ComponentWriteOptions): Promise<boolean>;
  /** the links a version pins */
  getLinks(componentId: string, version: number): Promise<ComponentLink[]>;
  /** the links of live components' versions that point at this component */
  getDependents(componentId: string): Promise<ComponentLink[]>;
}

/** The catalog, as `db.components`. */
export interface ComponentStorage {
  readonly components: ComponentStore;
}
