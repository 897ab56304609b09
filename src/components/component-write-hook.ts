/** One write to the component catalog, as the audit trail will record it. */
export interface ComponentWriteEvent {
  /** who: the caller's user id (or `admin` / `anonymous` for callers without one) */
  principal: string;
  /** what: `component.create`, `component.update`, `component.delete`, `component.restore`, `config.create`, `config.update`, `config.delete`, `config.set_current` */
  action: string;
  component_id: string;
  /** the config version the write touched, when it touched one */
  version?: number;
  /** the component's current version before and after the write */
  before_version: number | null;
  after_version: number | null;
}

/**
 * Called after each successful component or config write (AgentOSOptions.onComponentWrite): the
 * one seam an audit trail hooks into. A hook that throws does not undo the write; the error is logged.
 */
export type ComponentWriteHook = (event: ComponentWriteEvent) => void | Promise<void>;
