/**
 * Whether an IP address is one a server must never fetch on a caller's behalf: loopback,
 * private networks, link-local (where cloud metadata services answer), carrier-grade NAT,
 * multicast, reserved and unspecified ranges, for IPv4 and IPv6 (IPv4-mapped and NAT64 forms
 * are judged by the IPv4 address they carry). A string that is not an IP address is not blocked
 * here: host names are judged by `blockedHostName` and, where the runtime can resolve them, by
 * the addresses they resolve to.
 */
export function isBlockedAddress(address: string): boolean {
  const v4 = parseIPv4(address);
  if (v4) return blockedV4(v4);
  const v6 = parseIPv6(address);
  if (v6) return blockedV6(v6);
  return false;
}

/** Names that resolve to the machine itself or to a provider's internal services, whatever DNS says. */
export function blockedHostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return (
    h === "localhost" ||
    h.endsWith(".localhost") ||
    h.endsWith(".local") ||
    h.endsWith(".internal") ||
    h.endsWith(".home.arpa") ||
    h === "metadata" ||
    !h.includes(".")
  );
}

/** `a.b.c.d` in dotted decimal (the form the WHATWG URL parser normalises every IPv4 host to). */
function parseIPv4(s: string): number[] | null {
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : null;
}

function blockedV4([a, b, c]: number[]): boolean {
  return (
    a === 0 || // this network
    a === 10 ||
    a === 127 ||
    (a === 100 && b! >= 64 && b! <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF protocol assignments, TEST-NET-1
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113) ||
    a! >= 224 // multicast, reserved, broadcast
  );
}

/** Eight 16-bit groups, `::` and an embedded dotted IPv4 tail allowed; brackets and a zone id stripped. */
function parseIPv6(input: string): number[] | null {
  let s = input.replace(/^\[|\]$/g, "");
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(":")) return null;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(":");
  const maybeV4 = parseIPv4(s.slice(lastColon + 1));
  if (maybeV4) {
    tail = [(maybeV4[0]! << 8) | maybeV4[1]!, (maybeV4[2]! << 8) | maybeV4[3]!];
    s = s.slice(0, lastColon + 1) + "0:0";
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const group = (h: string) => (h === "" ? [] : h.split(":"));
  const head = group(halves[0]!);
  const rest = halves.length === 2 ? group(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return null;
  const words = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest].map((w) =>
    /^[0-9a-f]{1,4}$/i.test(w) ? parseInt(w, 16) : NaN,
  );
  if (words.length !== 8 || words.some(Number.isNaN)) return null;
  if (tail.length === 2) words.splice(6, 2, ...tail);
  return words;
}

function blockedV6(w: number[]): boolean {
  const zeroUntil = (n: number) => w.slice(0, n).every((x) => x === 0);
  if (zeroUntil(8)) return true; // ::
  if (zeroUntil(7) && w[7] === 1) return true; // ::1
  const embedded = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255];
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64): judged as the IPv4 address.
  if (zeroUntil(5) && (w[5] === 0xffff || w[5] === 0)) return blockedV4(embedded(w[6]!, w[7]!));
  if (w[0] === 0x64 && w[1] === 0xff9b) return blockedV4(embedded(w[6]!, w[7]!));
  const first = w[0]!;
  return (
    (first & 0xfe00) === 0xfc00 || // unique local
    (first & 0xffc0) === 0xfe80 || // link-local
    (first & 0xffc0) === 0xfec0 || // site-local (deprecated)
    (first & 0xff00) === 0xff00 || // multicast
    (first === 0x2001 && w[1] === 0x0db8) // documentation
  );
}
