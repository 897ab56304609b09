import type { Db } from "../db/port.js";
import type { Model } from "../models/model.js";
import type { Tool } from "../tools/tool.js";
import type { DecisionLogConfig, EntityMemoryConfig, UserMemoryConfig, UserProfileConfig } from "./config.js";
import { DecisionLogStore } from "./stores/decision-log.js";
import { EntityMemoryStore } from "./stores/entity-memory.js";
import type { LearningScope, LearningStore, ProcessInput } from "./stores/protocol.js";
import { UserMemoryStore } from "./stores/user-memory.js";
import { UserProfileStore } from "./stores/user-profile.js";

export interface LearningMachineOptions {
  /** the model extractions use (default: the agent's, when attached with `learning`) */
  model?: Model;
  userProfile?: boolean | UserProfileConfig | UserProfileStore;
  userMemory?: boolean | UserMemoryConfig | UserMemoryStore;
  entityMemory?: boolean | EntityMemoryConfig | EntityMemoryStore;
  decisionLog?: boolean | DecisionLogConfig | DecisionLogStore;
  /** entity memory's namespace when its config names none (default "global") */
  namespace?: string;
  /** changes one extraction may make, for stores that set none (default 10) */
  maxUpdatesPerRun?: number;
  /** more stores, by name */
  customStores?: Record<string, LearningStore>;
  name?: string;
}

/** What an agent hands the machine about a run. */
export type LearningRunScope = LearningScope;

/**
 * agno 3.0's LearningMachine: the learning stores of an agent. Attached with
 * `new Agent({ learning })`, it puts each store's guidance and recalled data in the system
 * message, gives the model the stores' tools, and after a run lets every `always` store
 * extract what it learned. `learning: true` is a machine with user profile and user memory.
 *
 * @example
 * const learning = new LearningMachine({ userProfile: true, userMemory: true, entityMemory: { namespace: "user" }, decisionLog: true });
 * const agent = new Agent({ model, db, learning });
 */
export class LearningMachine {
  readonly name?: string;
  model?: Model;
  readonly stores: ReadonlyMap<string, LearningStore>;

  constructor(opts: LearningMachineOptions = {}) {
    this.name = opts.name;
    this.model = opts.model;
    const max = opts.maxUpdatesPerRun ?? 10;
    const stores = new Map<string, LearningStore>();
    const pick = <C extends object, S>(
      value: boolean | C | S | undefined,
      make: (c: C) => S,
      cls: abstract new (...a: never[]) => S,
    ): S | null =>
      value === undefined || value === false
        ? null
        : value instanceof cls
          ? (value as S)
          : make(value === true ? ({} as C) : (value as C));
    const profile = pick<UserProfileConfig, UserProfileStore>(
      opts.userProfile,
      (c) => new UserProfileStore({ maxUpdatesPerRun: max, ...c }),
      UserProfileStore,
    );
    if (profile) stores.set("user_profile", profile);
    const memory = pick<UserMemoryConfig, UserMemoryStore>(
      opts.userMemory,
      (c) => new UserMemoryStore({ maxUpdatesPerRun: max, ...c }),
      UserMemoryStore,
    );
    if (memory) stores.set("user_memory", memory);
    const entities = pick<EntityMemoryConfig, EntityMemoryStore>(
      opts.entityMemory,
      (c) => new EntityMemoryStore({ ...c, namespace: c.namespace ?? opts.namespace }),
      EntityMemoryStore,
    );
    if (entities) stores.set("entity_memory", entities);
    const decisions = pick<DecisionLogConfig, DecisionLogStore>(
      opts.decisionLog,
      (c) => new DecisionLogStore(c),
      DecisionLogStore,
    );
    if (decisions) stores.set("decision_log", decisions);
    for (const [name, store] of Object.entries(opts.customStores ?? {})) stores.set(name, store);
    this.stores = stores;
  }

  get userProfileStore(): UserProfileStore | undefined {
    return this.stores.get("user_profile") as UserProfileStore | undefined;
  }
  get userMemoryStore(): UserMemoryStore | undefined {
    return this.stores.get("user_memory") as UserMemoryStore | undefined;
  }
  get entityMemoryStore(): EntityMemoryStore | undefined {
    return this.stores.get("entity_memory") as EntityMemoryStore | undefined;
  }
  get decisionLogStore(): DecisionLogStore | undefined {
    return this.stores.get("decision_log") as DecisionLogStore | undefined;
  }

  /** The guidance block: how and when to use the stores' tools. */
  instructions(): string {
    return [...this.stores.values()]
      .map((s) => s.instructions())
      .filter(Boolean)
      .join("\n\n");
  }

  /** The data block: what each store recalls for this run, rendered. */
  async buildContext(scope: LearningScope): Promise<string> {
    const parts: string[] = [];
    for (const store of this.stores.values()) {
      const text = store.buildContext(await store.recall(scope));
      if (text) parts.push(text);
    }
    return parts.join("\n\n");
  }

  /** What the system message gets: the guidance, then the data (agno's order). */
  async systemMessageBlock(scope: LearningScope): Promise<string> {
    return [this.instructions(), await this.buildContext(scope)].filter(Boolean).join("\n");
  }

  /** The stores' tools; they store through `db()` and read the run's user and session from their context. */
  tools(db: () => Db | undefined, agentId: string, fallbackModel?: () => Model | undefined): Tool[] {
    return [...this.stores.values()].flatMap((s) => s.tools(db, agentId, () => this.model ?? fallbackModel?.()));
  }

  /**
   * Every store's extraction after a run. A store that fails does not stop the others; the
   * failures come back, in store order.
   */
  async process(
    input: Omit<ProcessInput, "model"> & { model?: Model },
  ): Promise<Array<{ store: string; error: unknown }>> {
    // The machine's own model first; the caller's (the agent's) when it has none.
    const model = this.model ?? input.model;
    const failures: Array<{ store: string; error: unknown }> = [];
    if (!model) return failures;
    for (const [name, store] of this.stores) {
      try {
        await store.process({ ...input, model });
      } catch (error) {
        failures.push({ store: name, error });
      }
    }
    return failures;
  }
}
