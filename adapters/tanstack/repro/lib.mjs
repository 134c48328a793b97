// What the reproductions share: loading one installed line and a scripted
// connection. Nothing of the kit: a ChatClient of @tanstack/ai-client and
// a connection adapter of its own documented shape ({connect}) that plays
// the server's chunks.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { load } from '../src/sdk.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))

/** line loads the line named on the command line (a versions/ folder). */
export async function line() {
  const arg = process.argv[2]
  if (!arg) {
    console.error('usage: node repro/<script>.mjs versions/ai-client-X')
    process.exit(2)
  }
  return load(path.resolve(here, '..', arg))
}

/**
 * scripted is a connection adapter that answers request n with turns[n]:
 * an array of chunks, where a function entry is awaited (a held stream),
 * or a function of the request's run id returning one (a server stamps its
 * run id into interrupt bindings). It records each request.
 */
export function scripted(turns) {
  const requests = []
  return {
    requests,
    connection: {
      async *connect(messages, data, signal, runContext) {
        const n = requests.length
        requests.push({ messages: JSON.parse(JSON.stringify(messages)), runContext })
        const turn = typeof turns[n] === 'function' ? turns[n](runContext?.runId ?? `run-${n + 1}`) : turns[n]
        for (const c of turn ?? []) {
          if (typeof c === 'function') await c()
          else yield c
        }
      },
    },
  }
}

/**
 * watcher waits on the client's own change notifications: until(pred)
 * resolves when pred(messages) holds; idle() when nothing is loading and no
 * interrupt resume is being submitted, checked once the client's
 * synchronous hand-offs (a stream that ends starting a queued one) are done.
 */
export function watcher() {
  let waiters = []
  let client
  const check = () => {
    waiters = waiters.filter(({ pred, resolve }) => {
      if (pred()) {
        resolve()
        return false
      }
      return true
    })
  }
  const later = () => setImmediate(check)
  const busy = () => client.getIsLoading() || client.getInterruptState?.().resuming === true
  return {
    options: { onMessagesChange: later, onLoadingChange: later, onResumeStateChange: later, onStatusChange: later },
    attach(c) {
      client = c
    },
    until(pred) {
      return new Promise((resolve) => {
        waiters.push({ pred: () => pred(client.getMessages()), resolve })
        check()
      })
    },
    idle() {
      return new Promise((resolve) => {
        waiters.push({ pred: () => !busy(), resolve })
        later()
      })
    },
  }
}

/** part finds a tool-call part by call id in a message list. */
export function parts(messages, id) {
  return messages.flatMap((m) => m.parts).filter((p) => p.type === 'tool-call' && p.id === id)
}

/** gate is a promise the script opens by calling open(). */
export function gate() {
  let open
  const wait = new Promise((r) => {
    open = r
  })
  return { wait: () => wait, open: () => open() }
}

export function verdict(defect, message) {
  console.log(defect ? `DEFECT: ${message}` : `no defect: ${message}`)
  process.exit(defect ? 1 : 0)
}
