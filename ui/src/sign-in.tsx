import { useState } from "preact/hooks";
import type { OsInfo } from "./api.js";

/**
 * The sign-in form: the deployment's security key, or a JWT from the operator's identity
 * provider, pasted. `message` says why the page is here (a refused credential, a sign-out).
 */
export function SignIn(props: { info: OsInfo; message?: string; onSubmit: (credential: string) => void }) {
  const [value, setValue] = useState("");
  const jwt = props.info.auth_mode === "jwt";
  return (
    <main class="sign-in">
      <h1>Sign in to {props.info.name}</h1>
      <p>
        {jwt
          ? "This AgentOS accepts JSON Web Tokens: paste a token your identity provider issued."
          : "This AgentOS needs its security key (OS_SECURITY_KEY)."}{" "}
        It is kept in this tab only and sent with each request.
      </p>
      {props.message && (
        <p class="error" role="alert">
          {props.message}
        </p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim()) props.onSubmit(value.trim());
        }}
      >
        <label for="credential">{jwt ? "Token (JWT)" : "Security key"}</label>
        <input
          id="credential"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
        />
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}
