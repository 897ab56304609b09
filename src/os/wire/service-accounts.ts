import { z } from "zod";
import { agnoObject } from "./agno-object.js";
import { paginated } from "./paginated.js";

const source = (model: string, file = "os/routers/service_accounts/schema.py") => ({ model, file });
const epoch = () => z.int().describe("Epoch seconds");

/** agno's ScopeSchema: one scope parsed into the RBAC read shape every scope-bearing API answers. */
export const scopeSchema = agnoObject(source("ScopeSchema", "os/schema.py"), {
  id: z.null().describe("Always null (kept for parity with the cloud RBAC API)"),
  raw: z.string().describe("The scope as granted, e.g. agents:*:run"),
  namespace: z.string().describe("The resource, e.g. agents (system: reads as config)"),
  sub_namespace: z.string().nullable().describe("The instance id or *, for a per-instance scope"),
  permission: z.string().describe("The action, e.g. read, run, write"),
  value: z.string().describe("allow (a service account's scopes are grants)"),
});

const accountFields = {
  id: z.string(),
  name: z.string().describe("A lowercase slug, e.g. github-actions"),
  principal: z.string().describe("The user_id runs made with the key carry, e.g. sa:github-actions"),
  user_id: z.string().nullable().describe("The user the account belongs to; null for a workspace-level account"),
  token_prefix: z.string().describe("The key's first characters, for display only"),
  scopes: z.array(scopeSchema),
  created_at: epoch(),
  expires_at: epoch().nullable(),
  last_used_at: epoch().nullable().describe("When the key was last used (written at most once a minute)"),
  revoked_at: epoch().nullable(),
  created_by: z.string().nullable().describe("Who minted the key"),
};

/** agno's ServiceAccountResponse: the account, never its key or the key's hash. */
export const serviceAccountResponseSchema = agnoObject(source("ServiceAccountResponse"), accountFields);

/** agno's ServiceAccountCreateResponse: the account and, this once, its key. */
export const serviceAccountCreateResponseSchema = agnoObject(source("ServiceAccountCreateResponse"), {
  ...accountFields,
  token: z.string().describe("The key (agno_pat_…): shown once, never retrievable again"),
});

export const serviceAccountListSchema = paginated(serviceAccountResponseSchema);
