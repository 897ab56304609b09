import { UpstreamError } from "../upstream-error.js";

/**
 * A finance provider could not answer (no data for the symbol, an answer of the wrong shape): the
 * message is the tool error the model reads, so it stays short and free of secrets.
 */
export class FinanceProviderError extends UpstreamError {}
