import { z } from "zod";
import type { ComponentConfigRecord, ComponentRecord } from "../../db/port.js";
import type { RegistryResource } from "../../components/component-registry.js";
import { agnoObject } from "./agno-object.js";
import { paginated } from "./paginated.js";

const componentType = z.enum(["agent", "team", "workflow"]);

/** agno's ComponentResponse (sent with exclude_none: absent fields are left out). */
export const componentResponseSchema = agnoObject(
  { model: "ComponentResponse", file: "os/schema.py" },
  {
    component_id: z.string(),
    component_type: componentType,
    name: z.string().optional(),
    user_id: z.string().optional(),
    description: z.string().optional(),
    current_version: z.int().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    created_at: z.int(),
    updated_at: z.int().optional(),
    deleted_at: z.int().optional().describe("Set only on archived components"),
  },
);

/** agno's ComponentConfigResponse. */
export const componentConfigResponseSchema = agnoObject(
  { model: "ComponentConfigResponse", file: "os/schema.py" },
  {
    component_id: z.string(),
    version: z.int(),
    label: z.string().optional(),
    stage: z.string(),
    config: z.record(z.string(), z.unknown()),
    notes: z.string().optional(),
    created_at: z.int(),
    updated_at: z.int().optional(),
  },
);

/** agno's RegistryContentResponse. */
export const registryContentResponseSchema = agnoObject(
  { model: "RegistryContentResponse", file: "os/schema.py" },
  {
    name: z.string(),
    type: z.enum(["tool", "model", "knowledge", "agent", "team", "workflow"]),
    id: z.string().optional(),
    description: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  },
);

export const paginatedComponentsSchema = paginated(componentResponseSchema);
export const paginatedRegistrySchema = paginated(registryContentResponseSchema);

const dropNulls = <T extends Record<string, unknown>>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

export const componentView = (r: ComponentRecord) => dropNulls({ ...r }) as z.infer<typeof componentResponseSchema>;

export const componentConfigView = (r: ComponentConfigRecord) =>
  dropNulls({ ...r }) as z.infer<typeof componentConfigResponseSchema>;

export const registryView = (r: RegistryResource) =>
  dropNulls({ ...r }) as z.infer<typeof registryContentResponseSchema>;
