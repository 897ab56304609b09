/**
 * JWT material for the HTTP figures: one HS256 secret, one RS256 and one ES256 key pair, the
 * JWT_VERIFICATION_KEYS value that verifies all three (in the forms README lists: an `oct` JWK,
 * a PEM with its alg, a public JWK), and an admin token signed with each. Fresh for every bench.
 */
import { base64url, exportJWK, exportSPKI, generateKeyPair, SignJWT } from "jose";

export const JWT_ALGS = ["HS256", "RS256", "ES256"] as const;
export type JwtAlg = (typeof JWT_ALGS)[number];

export interface JwtMaterial {
  /** the JSON array JWT_VERIFICATION_KEYS holds */
  verificationKeys: unknown[];
  tokens: Record<JwtAlg, string>;
}

/** An hour is longer than the bench; `agent_os:admin` passes every route's scope check, as the security key does. */
async function sign(alg: JwtAlg, kid: string, key: CryptoKey | Uint8Array): Promise<string> {
  return new SignJWT({ scopes: ["agent_os:admin"] })
    .setProtectedHeader({ alg, kid })
    .setSubject("bench-admin")
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(key);
}

export async function makeJwtMaterial(): Promise<JwtMaterial> {
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const rsa = await generateKeyPair("RS256", { modulusLength: 2048, extractable: true });
  const ec = await generateKeyPair("ES256", { extractable: true });
  return {
    verificationKeys: [
      { kty: "oct", k: base64url.encode(secret), kid: "bench-hs" },
      { pem: await exportSPKI(rsa.publicKey), alg: "RS256", kid: "bench-rs" },
      { ...(await exportJWK(ec.publicKey)), kid: "bench-es" },
    ],
    tokens: {
      HS256: await sign("HS256", "bench-hs", secret),
      RS256: await sign("RS256", "bench-rs", rsa.privateKey),
      ES256: await sign("ES256", "bench-es", ec.privateKey),
    },
  };
}
