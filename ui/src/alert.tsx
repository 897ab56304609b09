/** An error line, announced when it appears. */
export function Alert(props: { message: string | undefined }) {
  return props.message ? (
    <p class="error" role="alert">
      {props.message}
    </p>
  ) : null;
}
