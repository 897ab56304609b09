import { z } from "zod";
import { agnoObject } from "./agno-object.js";

// `GET /config` (agno's `os/router.py`, `get_base_router`) answers its model with
// `response_model_exclude_none=True`: a field agno leaves unset is absent from the JSON, never
// null, at every depth. Optional fields below are therefore `.optional()`, not nullable.

/** agno's `Model` (`os/schema.py`): a model's id and provider. */
export const modelSchema = agnoObject(
  { model: "Model", file: "os/schema.py" },
  { id: z.string().optional(), provider: z.string().optional() },
);

/** agno's `AgentSummaryResponse` (`os/schema.py`): one agent as `/config` lists it. */
export const agentSummarySchema = agnoObject(
  { model: "AgentSummaryResponse", file: "os/schema.py" },
  {
    id: z.string().optional(),
    name: z.string().optional(),
    description: z.string().optional(),
    db_id: z.string().optional().describe("The database the agent's sessions are stored in"),
    model: modelSchema.optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  },
);

/** agno's `TeamSummaryResponse` (`os/schema.py`). */
export const teamSummarySchema = agnoObject(
  { model: "TeamSummaryResponse", file: "os/schema.py" },
  {
    id: z.string().optional(),
    name: z.string().optional(),
    description: z.string().optional(),
    db_id: z.string().optional(),
    mode: z.string().optional().describe("coordinate, route, broadcast or tasks"),
    model: modelSchema.optional(),
  },
);

/** agno's `WorkflowSummaryResponse` (`os/schema.py`). */
export const workflowSummarySchema = agnoObject(
  { model: "WorkflowSummaryResponse", file: "os/schema.py" },
  {
    id: z.string().optional(),
    name: z.string().optional(),
    description: z.string().optional(),
    db_id: z.string().optional(),
    is_factory: z.boolean(),
    factory_input_schema: z.record(z.string(), z.unknown()).optional(),
    is_component: z.boolean(),
    current_version: z.number().int().optional(),
    stage: z.string().optional(),
  },
);

/** agno's `InterfaceResponse` (`os/schema.py`): a chat interface (Slack, WhatsApp, …) and its route. */
export const interfaceSchema = agnoObject(
  { model: "InterfaceResponse", file: "os/schema.py" },
  { type: z.string(), version: z.string(), route: z.string() },
);

/** agno's `ChatConfig` (`os/config.py`): the chat page's quick prompts, by component id. */
export const chatConfigSchema = agnoObject(
  { model: "ChatConfig", file: "os/config.py" },
  { quick_prompts: z.record(z.string(), z.array(z.string())) },
);

/** agno's `Manifest` (`os/config.py`): the UI's card for one agent, team or workflow. */
export const manifestSchema = agnoObject(
  { model: "Manifest", file: "os/config.py" },
  {
    description: z.string().optional(),
    labels: z.array(z.string()).optional(),
    quick_prompts: z.array(z.string()).optional(),
  },
);

/**
 * One of agno's domains (sessions, memory, …) as `/config` describes it (`os/config.py`): its
 * `<Domain>DomainConfig`, the generic `DatabaseConfig[<Domain>DomainConfig]` for each database
 * holding it (named as pydantic names a generic's instance) and the `<Domain>Config` block.
 */
function domainBlock(domain: string) {
  const domainConfig = agnoObject(
    { model: `${domain}DomainConfig`, file: "os/config.py" },
    { display_name: z.string().optional() },
  );
  const databaseConfig = agnoObject(
    { model: `DatabaseConfig_${domain}DomainConfig_`, file: "os/config.py" },
    {
      db_id: z.string(),
      domain_config: domainConfig.optional(),
      tables: z.array(z.string()).optional(),
    },
  );
  return agnoObject(
    { model: `${domain}Config`, file: "os/config.py" },
    {
      display_name: z.string().optional(),
      dbs: z.array(databaseConfig).optional().describe(`The databases holding ${domain.toLowerCase()} data`),
    },
  );
}

export const sessionConfigSchema = domainBlock("Session");
export const memoryConfigSchema = domainBlock("Memory");
export const learningConfigSchema = domainBlock("Learning");
export const metricsConfigSchema = domainBlock("Metrics");
export const evalsConfigSchema = domainBlock("Evals");
export const tracesConfigSchema = domainBlock("Traces");

const knowledgeDomainConfigSchema = agnoObject(
  { model: "KnowledgeDomainConfig", file: "os/config.py" },
  { display_name: z.string().optional() },
);

/** agno's `KnowledgeConfig` (`os/config.py`): knowledge databases and the knowledge bases in them. */
export const knowledgeConfigSchema = agnoObject(
  { model: "KnowledgeConfig", file: "os/config.py" },
  {
    display_name: z.string().optional(),
    dbs: z
      .array(
        agnoObject(
          { model: "KnowledgeDatabaseConfig", file: "os/config.py" },
          {
            db_id: z.string(),
            domain_config: knowledgeDomainConfigSchema.optional(),
            tables: z.array(z.string()),
          },
        ),
      )
      .optional(),
    knowledge_instances: z
      .array(
        agnoObject(
          { model: "KnowledgeInstanceConfig", file: "os/config.py" },
          {
            id: z.string(),
            name: z.string(),
            description: z.string().optional(),
            db_id: z.string(),
            table: z.string(),
          },
        ),
      )
      .optional(),
  },
);

/** agno's `ConfigResponse` (`os/schema.py`): what `GET /config` answers. */
export const configResponseSchema = agnoObject(
  { model: "ConfigResponse", file: "os/schema.py" },
  {
    os_id: z.string(),
    name: z.string().optional(),
    description: z.string().optional(),
    available_models: z.array(modelSchema).describe("The distinct models (id and provider) the agents and teams use"),
    os_database: z.string().optional().describe("The database holding the OS's own data (schedules, the job queue)"),
    databases: z.array(z.string()).describe("Every database the OS's components use"),
    chat: chatConfigSchema.optional(),
    manifest: z.record(z.string(), manifestSchema).optional(),
    session: sessionConfigSchema.optional(),
    metrics: metricsConfigSchema.optional(),
    memory: memoryConfigSchema.optional(),
    learning: learningConfigSchema.optional(),
    knowledge: knowledgeConfigSchema.optional(),
    evals: evalsConfigSchema.optional(),
    traces: tracesConfigSchema.optional(),
    agents: z.array(agentSummarySchema),
    teams: z.array(teamSummarySchema),
    workflows: z.array(workflowSummarySchema),
    interfaces: z.array(interfaceSchema),
  },
);

export type ConfigResponse = z.infer<typeof configResponseSchema>;
