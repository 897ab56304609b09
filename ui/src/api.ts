/**
 * The console's one way to the AgentOS: same-origin requests carrying the signed-in credential as
 * `Authorization: Bearer`. The credential lives in this module and in sessionStorage (gone when the
 * tab closes), never in localStorage or a URL. A 401 signs out, with the server's reason.
 */

const STORAGE_KEY = "agno-edge.console.credential";

let credential: string | undefined = sessionStorage.getItem(STORAGE_KEY) ?? undefined;
let onSignedOut: (reason: string) => void = () => {};

/** An answer other than 2xx, with agno's `detail` as its message. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function credentialSet(): boolean {
  return credential !== undefined;
}

export function signIn(value: string): void {
  credential = value;
  sessionStorage.setItem(STORAGE_KEY, value);
}

export function signOut(): void {
  credential = undefined;
  sessionStorage.removeItem(STORAGE_KEY);
}

/** Called with the server's reason when a request is refused for its credential. */
export function whenSignedOut(listener: (reason: string) => void): void {
  onSignedOut = listener;
}

async function detailOf(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { detail?: unknown };
    if (typeof body.detail === "string") return body.detail;
  } catch {
    // not JSON
  }
  return `${res.status} ${res.statusText}`;
}

/** A request with the credential; any non-2xx answer throws an HttpError (a 401 also signs out). */
export async function request(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (credential !== undefined) headers.set("authorization", `Bearer ${credential}`);
  const res = await fetch(path, { ...init, headers });
  if (res.ok) return res;
  const detail = await detailOf(res);
  if (res.status === 401) {
    signOut();
    onSignedOut(detail);
  }
  throw new HttpError(res.status, detail);
}

export async function getJson<T>(path: string): Promise<T> {
  return (await (await request(path)).json()) as T;
}

/** `GET /info`: public, names the auth mode. */
export interface OsInfo {
  os_id: string;
  name: string;
  os_version: string;
  auth_mode: "none" | "security_key" | "jwt";
}

/** A served agent, team or workflow, as the pick lists show it. */
export interface Component {
  kind: "agents" | "teams" | "workflows";
  id: string;
  name: string;
}

export async function listComponents(): Promise<Component[]> {
  const kinds = ["agents", "teams", "workflows"] as const;
  const lists = await Promise.all(
    kinds.map((kind) => getJson<Array<{ id?: string; name?: string | null }>>(`/${kind}`)),
  );
  return lists.flatMap((list, i) =>
    list.flatMap((c) => (c.id ? [{ kind: kinds[i]!, id: c.id, name: c.name || c.id }] : [])),
  );
}

/** A request with a JSON body (or none), its JSON answer; a 204 answers undefined. */
export async function sendJson<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await request(path, {
    method,
    ...(body !== undefined && { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  return (res.status === 204 ? undefined : await res.json()) as T;
}

/** A page as agno's list routes answer it. */
export interface Paged<T> {
  data: T[];
  meta: { page: number; limit: number; total_pages: number; total_count: number };
}
