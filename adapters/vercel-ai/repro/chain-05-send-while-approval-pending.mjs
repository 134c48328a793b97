// CHAIN-05: a new user message while an approval is pending never leaves a
// dangling call: the call gets a result, or the send is refused.
//
// The chat shows an approval request for call_A; the user sends a new
// message instead of answering. The chat sends it at once, with call_A
// still approval-requested before the new user message (with
// experimental_queue, 7.x only, it holds the message until the call is
// answered instead). Run with QUEUE=1 to see the queue.
import { AbstractChat } from "ai";

class State {
  status = "ready"; error = undefined; messages = []; experimental_queuedMessages = [];
  pushMessage = (m) => { this.messages = [...this.messages, m]; };
  popMessage = () => { this.messages = this.messages.slice(0, -1); };
  replaceMessage = (i, m) => { this.messages = this.messages.map((x, j) => (j === i ? m : x)); };
  snapshot = (x) => structuredClone(x);
}
class Chat extends AbstractChat {
  constructor(init) { super({ ...init, state: new State() }); }
}
const chunks = (list) => new ReadableStream({ start(c) { for (const x of list) c.enqueue(x); c.close(); } });
const sent = [];
const answers = [
  [{ type: "start", messageId: "a1" }, { type: "start-step" },
   { type: "tool-input-available", toolCallId: "call_A", toolName: "deleteFile", input: { path: "/a" } },
   { type: "tool-approval-request", approvalId: "approval_A", toolCallId: "call_A" },
   { type: "finish-step" }, { type: "finish", finishReason: "tool-calls" }],
  [{ type: "start", messageId: "a2" }, { type: "start-step" }, { type: "text-start", id: "t" },
   { type: "text-delta", id: "t", delta: "All right." }, { type: "text-end", id: "t" }, { type: "finish-step" }, { type: "finish" }],
];
const chat = new Chat({
  experimental_queue: process.env.QUEUE === "1",
  transport: {
    sendMessages: async ({ messages }) => { sent.push(structuredClone(messages)); return chunks(answers[sent.length - 1]); },
    reconnectToStream: async () => null,
  },
});
await chat.sendMessage({ text: "delete a" });
await chat.sendMessage({ text: "actually, never mind" });
const last = sent.at(-1);
const dangling = last.some((m, i) => m.role === "assistant" && i < last.length - 1 &&
  m.parts.some((p) => p.toolCallId === "call_A" && p.state === "approval-requested"));
console.log(`requests: ${sent.length}; the last one leaves call_A unanswered before a user message: ${dangling}; queued: ${chat.experimental_queuedMessages?.length ?? 0}`);
process.exit(dangling ? 1 : 0);
