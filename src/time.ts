/** The current time in whole seconds since the epoch: the unit agno stores (`created_at`, `updated_at`, leases). */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
