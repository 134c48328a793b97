// The example SDK's errors: one class, a code of its own per kind of
// refusal (the adapter maps them onto the protocol's codes).

/** AgentError is a turn the example SDK refuses or cannot finish. */
export class AgentError extends Error {
  /**
   * code: "invalid-messages", "toolkit-required", "tool-not-found",
   * "invalid-approval", "missing-results" or "model".
   */
  constructor(code, message, options) {
    super(message, options);
    this.name = "AgentError";
    this.code = code;
  }
}
