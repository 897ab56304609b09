import type { Component } from "../../agent/component.js";
import { A2A_PROTOCOL_VERSION } from "./a2a-wire.js";

/**
 * The agent card of one agent, team or workflow (A2A 0.3's AgentCard, as agno builds it): its
 * JSON-RPC endpoint is agno's `…/v1/message:stream` URL, which takes every method, so a client
 * that sends all its calls to the card's url works; streaming yes, push notifications no.
 */
export function agentCard(component: Component, endpoint: string) {
  const { id, name } = component.ref;
  const description = (component as { description?: unknown }).description;
  const text = typeof description === "string" ? description : "";
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    name: name ?? id,
    description: text,
    url: endpoint,
    preferredTransport: "JSONRPC",
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: ["text"],
    defaultOutputModes: ["text"],
    skills: [
      {
        id,
        name: name ?? id,
        description: text,
        tags: ["agno", component.ref.type],
        outputModes: ["application/json"],
      },
    ],
    supportsAuthenticatedExtendedCard: false,
  };
}
