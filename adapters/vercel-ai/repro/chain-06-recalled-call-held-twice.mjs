// CHAIN-06 (and CHAIN-04): a continuation that re-sends a call duplicates
// nothing, and the call's part reaches its outcome.
//
// The client continues assistant message a1, whose call_A the user
// approved. The server's continuation re-sends call_A (its input, then its
// output) in a new step. The SDK looks a tool part up in the current step
// only, so it adds a second part for call_A: the message then holds call_A
// twice, and the original part stays approval-responded while the output
// goes to the copy.
import { readUIMessageStream } from "ai";

const message = { id: "a1", role: "assistant", parts: [
  { type: "step-start" },
  { type: "tool-deleteFile", toolCallId: "call_A", state: "approval-responded", input: { path: "/a" }, approval: { id: "approval_A", approved: true } },
] };
const chunks = [
  { type: "start", messageId: "a1" },
  { type: "start-step" },
  { type: "tool-input-start", toolCallId: "call_A", toolName: "deleteFile" },
  { type: "tool-input-available", toolCallId: "call_A", toolName: "deleteFile", input: { path: "/a" } },
  { type: "tool-output-available", toolCallId: "call_A", output: { ok: true } },
  { type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Deleted a." }, { type: "text-end", id: "t" },
  { type: "finish-step" }, { type: "finish", finishReason: "stop" },
];
const stream = new ReadableStream({ start(c) { for (const x of chunks) c.enqueue(x); c.close(); } });
let last;
for await (const m of readUIMessageStream({ message, stream })) last = m;
const parts = last.parts.filter((p) => p.toolCallId === "call_A");
console.log(`call_A is held in ${parts.length} part(s): ${parts.map((p) => p.state).join(", ")}`);
process.exit(parts.length === 1 && parts[0].state === "output-available" ? 0 : 1);
