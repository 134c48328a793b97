// The driver kit: what every Node adapter of driver protocol v1 shares, so
// that an adapter is its SDK mapping only. README.md documents the API.

export { MAX_BODY, HTTPError, badRequest, readBody, readJSON, onlyFields, sendJSON, sendError, postJSON, sseEvents } from "./http.mjs";
export { checkTurn, checkChat, checkSession, checkAction, checkModel, checkTools, checkOptions, MAX_WAIT_MS } from "./protocol.mjs";
export { declare, FEATURES, AGENT_FEATURES, DEFAULT_DIALECTS } from "./declare.mjs";
export { NotExpressible, CanonicalError, ERROR_CODES, sdkErrorOf, turnError, failedTurn, withFinish, eventsOf, lastAssistant, trailingAnswers, agentTurn } from "./turn.mjs";
export { ToolFailed, PolicyFailed, executeTool, askPolicy, decidePolicy } from "./tools.mjs";
export { BoundedMap, StateStore } from "./state.mjs";
export { ModelHTTPError, canonicalURL, callCanonical, ReplyBuilder } from "./canonical.mjs";
export { Changes, PartHistory, holds, speaks, ClientRole } from "./client.mjs";
export { ServerRole, toRequest, sendResponse } from "./server.mjs";
export { FlagError, parseFlags, loadSDK, serve, runAdapter } from "./main.mjs";
