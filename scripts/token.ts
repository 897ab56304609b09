/**
 * `npm run token`: mints a development JWT, and prints the JWT_VERIFICATION_KEYS value that
 * verifies it. With no JWT_SECRET a new 32-byte secret is made (print it once, keep it).
 *
 *   npm run token -- --sub ann --scopes sessions:read,sessions:write,agents:*:run --ttl 3600
 *   JWT_SECRET=<base64url> npm run token -- --sub admin --scopes agent_os:admin
 */
import { base64url, SignJWT } from "jose";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    sub: { type: "string", default: "dev-user" },
    scopes: { type: "string", default: "agent_os:admin" },
    ttl: { type: "string", default: "3600" },
    aud: { type: "string" },
    iss: { type: "string" },
    kid: { type: "string", default: "dev" },
  },
});

const secret = process.env.JWT_SECRET ? base64url.decode(process.env.JWT_SECRET) : crypto.getRandomValues(new Uint8Array(32));
if (secret.length < 32) throw new Error("JWT_SECRET must decode to at least 32 bytes");
const jwt = new SignJWT({ scopes: values.scopes.split(",").filter(Boolean) })
  .setProtectedHeader({ alg: "HS256", kid: values.kid })
  .setSubject(values.sub)
  .setIssuedAt()
  .setExpirationTime(`${Number(values.ttl)}s`);
if (values.aud) jwt.setAudience(values.aud);
if (values.iss) jwt.setIssuer(values.iss);
const token = await jwt.sign(secret);

console.log(`JWT_VERIFICATION_KEYS='${JSON.stringify([{ kty: "oct", k: base64url.encode(secret), kid: values.kid }])}'`);
if (!process.env.JWT_SECRET) console.log(`JWT_SECRET=${base64url.encode(secret)}`);
console.log(`TOKEN=${token}`);
