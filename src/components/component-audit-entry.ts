import type { AuditEntry } from "../db/ports/audit-store.js";
import type { ComponentWriteEvent } from "./component-write-hook.js";

/**
 * A catalog write as the audit trail records it: `component.create` is action `create` on
 * resource type `component`; a config's id is `<component_id>@<version>`; versions are the
 * component's current version before and after.
 */
export function componentAuditEntry(event: Omit<ComponentWriteEvent, "principal">): Omit<AuditEntry, "principal"> {
  const [kind = "component", action = event.action] = event.action.split(".");
  const version = (v: number | null) => (v === null ? null : String(v));
  return {
    action,
    resource_type: kind,
    resource_id:
      kind === "config" && event.version !== undefined ? `${event.component_id}@${event.version}` : event.component_id,
    before_version: version(event.before_version),
    after_version: version(event.after_version),
    details: { component_id: event.component_id, ...(event.version !== undefined ? { version: event.version } : {}) },
  };
}
