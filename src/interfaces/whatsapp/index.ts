export { WhatsApp, DEFAULT_WHATSAPP_API_URL, type WhatsAppOptions } from "./whatsapp.js";
export { WhatsAppApi, WhatsAppApiError } from "./whatsapp-api.js";
export { markdownToWhatsApp, escapeWhatsApp, splitMessage } from "./whatsapp-format.js";
export { verifyMetaSignature } from "./whatsapp-signature.js";
