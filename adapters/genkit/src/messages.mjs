// Canonical messages to Genkit messages and back.
//
// Genkit's history is its run state: an interrupted call is a toolRequest
// part of the last model message with metadata.interrupt, a call of the
// same step that ran already is a toolRequest with metadata.pendingOutput,
// and an answer is not a message at all but the resume option of the next
// generate() (restart or respond). So approval requests map to the
// interrupt metadata of their calls, the results of an interrupted step to
// pendingOutput, and the answers after the last assistant message to the
// resume option; answers earlier in the history are past (their calls'
// results say what came of them) and have no Genkit form.

import { NotExpressible } from "../../driverkit/index.mjs";

/** denialOutput is what the application responds for a denied call. */
export function denialOutput(reason) {
  return reason ? `The user denied this tool call: ${reason}` : "The user denied this tool call.";
}

function outputValue(output) {
  switch (output?.type) {
    case "json":
    case "text":
    case "error-json":
    case "error-text":
      return output.value;
    case "execution-denied":
      return denialOutput(output.reason);
  }
  throw new NotExpressible(`a tool output of type ${output?.type} has no Genkit form`);
}

function textParts(content, where) {
  if (typeof content === "string") return [{ text: content }];
  return content.map((p, j) => {
    if (p.type === "text") return { text: p.text };
    throw new NotExpressible(`${where}.content[${j}]: a ${p.type} part: the adapter gives the model text only`);
  });
}

/**
 * toGenkit maps a canonical conversation to Genkit messages and the answers
 * of its last step: {messages, answers} (answers undefined when the
 * conversation ends with no answer).
 */
export function toGenkit(conversation) {
  let last = -1;
  conversation.forEach((m, i) => {
    if (m?.role === "assistant") last = i;
  });
  const messages = [];
  let answers;
  const requests = new Map(); // approvalId -> {toolCallId, part}
  conversation.forEach((m, i) => {
    const where = `messages[${i}]`;
    switch (m.role) {
      case "system":
        messages.push({ role: "system", content: textParts(m.content, where) });
        return;
      case "user":
        if (i > last && answers) throw new NotExpressible(`${where}: a user message after the answers: resume continues the model message it answers`);
        messages.push({ role: "user", content: textParts(m.content, where) });
        return;
      case "assistant": {
        const content = [];
        const calls = new Map();
        (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content).forEach((p, j) => {
          switch (p.type) {
            case "text":
              content.push({ text: p.text });
              return;
            case "reasoning":
              content.push({ reasoning: p.text });
              return;
            case "tool-call": {
              if (p.providerExecuted) throw new NotExpressible(`${where}.content[${j}]: a provider-executed call has no Genkit form`);
              const part = { toolRequest: { name: p.toolName, ref: p.toolCallId, input: p.input } };
              calls.set(p.toolCallId, part);
              content.push(part);
              return;
            }
            case "tool-approval-request": {
              const part = calls.get(p.toolCallId);
              if (!part) throw new NotExpressible(`${where}.content[${j}]: an approval request for ${p.toolCallId}, no call of its message`);
              if (i === last) part.metadata = { ...(part.metadata ?? {}), interrupt: true };
              requests.set(p.approvalId, { toolCallId: p.toolCallId });
              return;
            }
          }
          throw new NotExpressible(`${where}.content[${j}]: a ${p.type} part has no Genkit form`);
        });
        messages.push({ role: "model", content });
        return;
      }
      case "tool": {
        const content = [];
        m.content.forEach((p, j) => {
          if (p.type === "tool-approval-response") {
            if (i < last) return;
            if (typeof p.approvalId !== "string" || p.approvalId === "" || typeof p.approved !== "boolean" || (p.reason !== undefined && typeof p.reason !== "string")) {
              throw new NotExpressible(`${where}.content[${j}]: a malformed answer (approvalId ${JSON.stringify(p.approvalId)}, approved ${JSON.stringify(p.approved)}): the application restarts or responds to an interrupted call, on a yes or a no`);
            }
            const r = requests.get(p.approvalId);
            if (!r) throw new NotExpressible(`${where}.content[${j}]: the answer to ${JSON.stringify(p.approvalId)} matches no approval request: Genkit resumes an interrupted call, found by its request`);
            answers ??= [];
            answers.push({ where: `${where}.content[${j}]`, approvalId: p.approvalId, toolCallId: r.toolCallId, approved: p.approved, reason: p.reason, editedInput: p.editedInput });
            return;
          }
          if (i > last) {
            // A result of the interrupted step: a call that ran before the
            // interrupt, which Genkit keeps as the call's pendingOutput.
            const call = messages[messages.length - 1 - countTail(messages)]?.content?.find((q) => q.toolRequest?.ref === p.toolCallId);
            if (call) {
              call.metadata = { ...(call.metadata ?? {}), pendingOutput: outputValue(p.output) };
              return;
            }
          }
          content.push({ toolResponse: { name: p.toolName, ref: p.toolCallId, output: outputValue(p.output) } });
        });
        if (content.length > 0) messages.push({ role: "tool", content });
        return;
      }
    }
    throw new NotExpressible(`${where}.role: ${m.role} has no Genkit message`);
  });
  if (answers && messages.at(-1)?.role !== "model") {
    throw new NotExpressible("answers beside other messages after the last model message: resume continues the model message it answers");
  }
  return { messages, answers };
}

// countTail counts the tool messages at the end of messages (after the last model message).
function countTail(messages) {
  let n = 0;
  for (let i = messages.length - 1; i >= 0 && messages[i].role === "tool"; i--) n++;
  return n;
}

function resultOutput(output) {
  return typeof output === "string" ? { type: "text", value: output } : { type: "json", value: output ?? null };
}

/**
 * fromGenkit maps the messages a generate() added to canonical messages: a
 * model message is an assistant message (text, reasoning, calls, and an
 * approval request per interrupted call) followed, for an interrupted step,
 * by a tool message with the results of its calls that ran (their
 * pendingOutput); a tool message is a tool message, without the results a
 * resume re-reports from pendingOutput (the turn before answered them).
 */
export function fromGenkit(added) {
  const out = [];
  for (const m of added) {
    if (m.role === "model") {
      const content = [];
      const pending = [];
      const requests = [];
      for (const p of m.content ?? []) {
        if (p.text !== undefined) {
          if (p.text !== "") content.push({ type: "text", text: p.text });
        } else if (p.reasoning !== undefined) {
          content.push({ type: "reasoning", text: p.reasoning });
        } else if (p.toolRequest) {
          const r = p.toolRequest;
          content.push({ type: "tool-call", toolCallId: r.ref, toolName: r.name, input: r.input ?? {} });
          if (p.metadata?.interrupt) requests.push({ type: "tool-approval-request", approvalId: r.ref, toolCallId: r.ref });
          if (p.metadata && "pendingOutput" in p.metadata) pending.push({ type: "tool-result", toolCallId: r.ref, toolName: r.name, output: resultOutput(p.metadata.pendingOutput) });
        }
      }
      out.push({ role: "assistant", content: [...content, ...requests] });
      if (pending.length > 0) out.push({ role: "tool", content: pending });
    } else if (m.role === "tool") {
      const content = [];
      for (const p of m.content ?? []) {
        if (!p.toolResponse || p.metadata?.source === "pending") continue;
        content.push({ type: "tool-result", toolCallId: p.toolResponse.ref, toolName: p.toolResponse.name, output: resultOutput(p.toolResponse.output) });
      }
      if (content.length > 0) out.push({ role: "tool", content });
    }
  }
  return out;
}
