import {
  base64url,
  decodeProtectedHeader,
  errors,
  importJWK,
  importSPKI,
  jwtVerify,
  type JWK,
  type JWTPayload,
} from "jose";
import { nowSeconds } from "../../time.js";
import { isReservedPrincipal } from "./reserved-principal.js";

/** Who is calling, as the token says. */
export interface Principal {
  userId: string | null;
  sessionId?: string;
  scopes: string[];
  /** `agent_os:admin`, or a security-key / auth-off caller */
  admin: boolean;
  /** a token's: when (epoch ms) it stops being accepted, its `exp` plus the clock skew allowed; a socket it opened is closed then */
  expiresAt?: number;
}

/** A verification key with its algorithm pinned: a token signed any other way never verifies with it. */
interface PinnedKey {
  kid?: string;
  /** imported once, on first use */
  resolve: () => Promise<{ alg: string; key: CryptoKey | Uint8Array }>;
}

export interface JwtOptions {
  audience?: string;
  issuer?: string;
  /** seconds of clock skew accepted on exp/nbf/iat (default 30) */
  clockToleranceSeconds?: number;
  /** tokens without `exp` are refused unless this is false (default true) */
  requireExp?: boolean;
}

/** Tokens larger than this are refused before any parsing. */
export const MAX_TOKEN_BYTES = 8 * 1024;
const ASYMMETRIC_PEM_ALGS = ["RS256", "ES256", "ES384", "ES512", "EdDSA"];
const MIN_HS_SECRET_BYTES = 32;

export class JwtError extends Error {
  override readonly name = "JwtError";
}

function defaultAlg(jwk: JWK): string {
  if (jwk.alg) return jwk.alg;
  if (jwk.kty === "RSA") return "RS256";
  if (jwk.kty === "oct") return "HS256";
  if (jwk.kty === "OKP") return "EdDSA";
  if (jwk.kty === "EC") return { "P-256": "ES256", "P-384": "ES384", "P-521": "ES512" }[jwk.crv ?? ""] ?? "ES256";
  throw new TypeError(`verification key of unsupported kty ${jwk.kty}`);
}

function memo<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= fn());
}

/** One configured entry: a PEM public key, `{pem, alg, kid}`, a JWK (public or `oct`), or a JWKS. */
function pinKeys(entry: unknown): PinnedKey[] {
  if (typeof entry === "string") {
    if (!entry.includes("-----BEGIN PUBLIC KEY-----"))
      throw new TypeError("a string verification key must be a PEM public key (SPKI)");
    return [pemKey(entry)];
  }
  if (!entry || typeof entry !== "object")
    throw new TypeError("a verification key must be a PEM string, a JWK, or a JWKS");
  const e = entry as Record<string, unknown>;
  if (Array.isArray(e.keys)) return e.keys.flatMap(pinKeys);
  if (typeof e.pem === "string") return [pemKey(e.pem, e.alg as string | undefined, e.kid as string | undefined)];
  const jwk = e as JWK;
  if (jwk.d) throw new TypeError("a verification key must not contain a private key");
  const alg = defaultAlg(jwk);
  if (jwk.kty === "oct") {
    const secret = base64url.decode(jwk.k ?? "");
    if (secret.length < MIN_HS_SECRET_BYTES)
      throw new TypeError(`an HS secret must be at least ${MIN_HS_SECRET_BYTES} bytes`);
    // Imported once as an HMAC CryptoKey: jose would re-import raw bytes on every verify.
    const hmac = { name: "HMAC", hash: `SHA-${alg.slice(2)}` };
    return [
      {
        kid: jwk.kid,
        resolve: memo(async () => ({
          alg,
          key: await crypto.subtle.importKey("raw", new Uint8Array(secret), hmac, false, ["verify"]),
        })),
      },
    ];
  }
  return [{ kid: jwk.kid, resolve: memo(async () => ({ alg, key: (await importJWK(jwk, alg)) as CryptoKey })) }];
}

/** A PEM key; without `alg`, the first algorithm its key type imports with (RSA keys pin RS256). */
function pemKey(pem: string, alg?: string, kid?: string): PinnedKey {
  return {
    kid,
    resolve: memo(async () => {
      for (const candidate of alg ? [alg] : ASYMMETRIC_PEM_ALGS) {
        try {
          return { alg: candidate, key: await importSPKI(pem, candidate) };
        } catch {
          // not this key type: try the next
        }
      }
      throw new TypeError(alg ? `PEM public key does not import as ${alg}` : "PEM public key of unsupported type");
    }),
  };
}

function principalFrom(payload: JWTPayload): Principal {
  const sub = payload.sub;
  if (typeof sub !== "string" || sub.length === 0 || sub.length > 255 || /[\u0000-\u001f]/.test(sub) || sub === "*") {
    throw new JwtError("token subject (sub) is missing or not a valid user id");
  }
  if (isReservedPrincipal(sub)) throw new JwtError("token subject (sub) claims a principal reserved for the server");
  const scopes = payload.scopes ?? [];
  if (
    !Array.isArray(scopes) ||
    scopes.length > 200 ||
    !scopes.every((s) => typeof s === "string" && s.length > 0 && s.length <= 200)
  ) {
    throw new JwtError("token scopes must be a list of strings");
  }
  const sessionId = payload.session_id;
  if (sessionId !== undefined && typeof sessionId !== "string") throw new JwtError("token session_id must be a string");
  return { userId: sub, sessionId, scopes: scopes as string[], admin: (scopes as string[]).includes("agent_os:admin") };
}

/**
 * Verifies bearer JWTs against a list of keys (rotation: old and new side by side), each with
 * its algorithm pinned. A token naming a `kid` is checked with that key only (an unknown kid is
 * refused); one without a kid is tried with each key in order. Claims (exp required by default, nbf, iat, aud, iss) are checked with a small clock tolerance;
 * a subject naming a server-reserved principal is refused.
 *
 * @example
 * const verifier = new JwtVerifier([publicKeyPem, { kty: "oct", k: secret, kid: "2026-11" }], { audience: "agno" });
 * const principal = await verifier.verify(token);
 */
export class JwtVerifier {
  private readonly keys: PinnedKey[];

  constructor(
    entries: unknown[],
    private readonly opts: JwtOptions = {},
  ) {
    if (!Array.isArray(entries) || entries.length === 0) throw new TypeError("JWT verification needs at least one key");
    this.keys = entries.flatMap(pinKeys);
  }

  async verify(token: string): Promise<Principal> {
    if (new TextEncoder().encode(token).length > MAX_TOKEN_BYTES) throw new JwtError("token is too large");
    let header: { alg?: string; kid?: string };
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw new JwtError("token is malformed");
    }
    if (!header.alg || header.alg === "none") throw new JwtError("token algorithm is not accepted");
    // A token that names its key is checked with that key only; one that names none, with each in turn.
    const candidates = header.kid === undefined ? this.keys : this.keys.filter((k) => k.kid === header.kid);
    if (candidates.length === 0) throw new JwtError("token key id (kid) is not one of the verification keys");
    for (const pinned of candidates) {
      const { alg, key } = await pinned.resolve();
      if (alg !== header.alg) continue;
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [alg],
          audience: this.opts.audience,
          issuer: this.opts.issuer,
          clockTolerance: this.opts.clockToleranceSeconds ?? 30,
          requiredClaims: this.opts.requireExp === false ? [] : ["exp"],
        });
        const tolerance = this.opts.clockToleranceSeconds ?? 30;
        // jose checks `iat` only against a maximum age; a token minted ahead of our clock by
        // more than the skew allowed is refused, as agno's verifier refuses it.
        if (payload.iat !== undefined && payload.iat > nowSeconds() + tolerance)
          throw new JwtError("token was issued in the future (iat)");
        const principal = principalFrom(payload);
        return payload.exp === undefined ? principal : { ...principal, expiresAt: (payload.exp + tolerance) * 1000 };
      } catch (error) {
        // A bad signature may be another key's token: try the next. Anything else (expired,
        // wrong audience, malformed claims) was signed by this key and is final.
        if (error instanceof errors.JWSSignatureVerificationFailed) continue;
        if (error instanceof JwtError) throw error;
        throw new JwtError(error instanceof errors.JOSEError ? `token rejected: ${error.code}` : "token rejected");
      }
    }
    throw new JwtError("token signature does not match any verification key");
  }
}
