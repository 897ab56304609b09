export { blockedHostName, isBlockedAddress } from "./blocked-address.js";
export { RemoteContentTooLargeError, RemoteFetchError, UnsafeUrlError } from "./errors.js";
export {
  checkRemoteUrl,
  DEFAULT_REMOTE_CONTENT_TYPES,
  safeFetch,
  safeFetcher,
  type FetchedContent,
  type HostLookup,
  type RemoteFetcher,
  type SafeFetchOptions,
} from "./safe-fetch.js";
