// The SDK's errors as driver protocol turn error codes, by the SDK's own
// error classes (each has a static isInstance that checks its marker, so
// the check holds across copies of the package).

// Each entry: the SDK's class name (as exported by the ai package) and the
// code. The first match wins; an error no class matches is Other.
const codes = [
  ["InvalidToolApprovalError", "InvalidApproval"],
  ["InvalidToolApprovalSignatureError", "InvalidApproval"],
  ["ToolCallNotFoundForApprovalError", "InvalidApproval"],
  ["MissingToolResultsError", "MissingToolResults"],
  ["NoSuchToolError", "ToolNotFound"],
  ["InvalidPromptError", "InvalidMessages"],
  ["InvalidMessageRoleError", "InvalidMessages"],
  ["MessageConversionError", "InvalidMessages"],
  ["InvalidDataContentError", "InvalidMessages"],
  ["APICallError", "Model"],
  ["RetryError", "Model"],
  ["EmptyResponseBodyError", "Model"],
  ["InvalidResponseDataError", "Model"],
  ["JSONParseError", "Model"],
  ["TypeValidationError", "Model"],
  ["NoContentGeneratedError", "Model"],
  ["NoOutputGeneratedError", "Model"],
  ["InvalidStreamPartError", "Model"],
  ["StreamProviderError", "Model"],
];

/** sdkErrorText is the SDK's own error: its name and message. */
export function sdkErrorText(e) {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}

/** turnError maps an error the SDK threw or streamed to a turn error. */
export function turnError(ai, e) {
  let code = "Other";
  for (const [cls, c] of codes) {
    const C = ai[cls];
    if (C && typeof C.isInstance === "function" && C.isInstance(e)) {
      code = c;
      break;
    }
  }
  // A RetryError wraps the last error; with maxRetries 0 there is none, but
  // a wrapped cause says more than the wrapper.
  let message = e instanceof Error ? e.message : String(e);
  if (ai.APICallError?.isInstance(e) && e.responseBody) {
    message += ` (status ${e.statusCode}: ${e.responseBody})`;
  }
  return { code, message, sdkError: sdkErrorText(e) };
}
