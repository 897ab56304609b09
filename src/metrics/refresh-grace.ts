/**
 * How far before its buckets were written a session write still makes a day owe a refresh: a
 * run's row is stamped before it commits, so a write in flight while a refresh reads is counted
 * by the next refresh instead of being lost.
 */
export const REFRESH_GRACE_SECONDS = 60;
