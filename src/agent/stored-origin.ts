/**
 * Where a component built from a stored config came from (components as data): the config
 * version it was built from and that config's stage. agno's responses report it as
 * `is_component`, `current_version` and `stage`; a code-defined component has none.
 */
export interface StoredOrigin {
  version: number;
  stage: "draft" | "published";
}
