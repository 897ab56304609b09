import type { ComponentChildren } from "preact";

/** An in-page question before an action that cannot be undone: the action's button, and Cancel. */
export function Confirm(props: {
  label: string;
  action: string;
  onConfirm: () => void;
  onCancel: () => void;
  children: ComponentChildren;
}) {
  return (
    <div class="confirm" role="alertdialog" aria-label={props.label}>
      <p>{props.children}</p>
      <button type="button" onClick={props.onConfirm}>
        {props.action}
      </button>{" "}
      <button type="button" class="secondary" onClick={props.onCancel}>
        Cancel
      </button>
    </div>
  );
}
