// The driver protocol's HTTP plumbing now lives in the driver kit
// (../driverkit, README.md there). This module re-exports it for the
// adapters that still import it by this path (Effect's); it goes once they
// have moved onto the kit.

export { HTTPError, MAX_BODY, badRequest, checkTurn, onlyFields, postJSON, readJSON, sendError, sendJSON, sseEvents } from "../driverkit/index.mjs";
