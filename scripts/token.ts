/**
 * `npm run token`: mints a development JWT, and prints the JWT_VERIFICATION_KEYS value that
 * verifies it. With no JWT_SECRET a new 32-byte secret is made (print it once, keep it).
 *
 *   npm run token -- --sub ann --scopes sessions:read,sessions:write,agents:*:run --ttl 3600
 *   JWT_SECRET=<base64url> npm run token -- --sub admin --scopes agent_os:admin
 */
import { base64url, SignJWT } from "jose";
import { parseArgs } from "node:util";
import { errorMessage } from "../src/errors.js";

const OPTIONS = {
  sub: { type: "string", default: "dev-user" },
  scopes: { type: "string", default: "agent_os:admin" },
  ttl: { type: "string", default: "3600" },
  aud: { type: "string" },
  iss: { type: "string" },
  kid: { type: "string", default: "dev" },
  help: { type: "boolean", short: "h" },
} as const;

const USAGE = `Usage: npm run token -- [--sub <user>] [--scopes <a,b,…>] [--ttl <seconds>] [--aud <audience>] [--iss <issuer>] [--kid <key id>]

Mints a development JWT (HS256) and prints the JWT_VERIFICATION_KEYS value that verifies it.
Without JWT_SECRET in the environment a new 32-byte secret is made and printed (keep it to mint more).

  --sub     the user (sub claim)                       default dev-user
  --scopes  comma-separated scopes (agno's grammar)     default agent_os:admin
  --ttl     seconds until the token expires             default 3600
  --aud     audience (set JWT_AUDIENCE to the same)
  --iss     issuer (set JWT_ISSUER to the same)
  --kid     key id                                      default dev
  --help    this text

Example: npm run token -- --sub ann --scopes sessions:read,sessions:write,agents:*:run`;

const { values } = (() => {
  try {
    return parseArgs({ options: OPTIONS });
  } catch (error) {
    console.error(`${errorMessage(error)}\n\n${USAGE}`);
    process.exit(2);
  }
})();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const secret = process.env.JWT_SECRET
  ? base64url.decode(process.env.JWT_SECRET)
  : crypto.getRandomValues(new Uint8Array(32));
if (secret.length < 32) throw new Error("JWT_SECRET must decode to at least 32 bytes");
const jwt = new SignJWT({ scopes: values.scopes.split(",").filter(Boolean) })
  .setProtectedHeader({ alg: "HS256", kid: values.kid })
  .setSubject(values.sub)
  .setIssuedAt()
  .setExpirationTime(`${Number(values.ttl)}s`);
if (values.aud) jwt.setAudience(values.aud);
if (values.iss) jwt.setIssuer(values.iss);
const token = await jwt.sign(secret);

console.log(
  `JWT_VERIFICATION_KEYS='${JSON.stringify([{ kty: "oct", k: base64url.encode(secret), kid: values.kid }])}'`,
);
if (!process.env.JWT_SECRET) console.log(`JWT_SECRET=${base64url.encode(secret)}`);
console.log(`TOKEN=${token}`);
