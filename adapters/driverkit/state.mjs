// State an adapter keeps between the turns of a conversation: bounded, so
// that a long run (or a hostile client) cannot grow it without end.

import { randomUUID } from "node:crypto";

/**
 * BoundedMap is a Map that holds at most max entries: setting a new key
 * past the bound forgets the entry set longest ago (setting a key again
 * makes it the newest). Key it by the turn's `conversation` for what an
 * SDK keeps per conversation (its instance, a ledger, the callback URLs of
 * the latest turn), so that no scenario sees another's state.
 */
export class BoundedMap extends Map {
  constructor(max, entries) {
    super();
    if (!(Number.isInteger(max) && max > 0)) throw new Error(`BoundedMap: want a bound of 1 or more, got ${max}`);
    this.max = max;
    for (const [k, v] of entries ?? []) this.set(k, v);
  }

  set(key, value) {
    if (this.has(key)) this.delete(key);
    super.set(key, value);
    while (this.size > this.max) this.delete(this.keys().next().value);
    return this;
  }

  /** getOrSet returns the value of key, setting it to make() first when there is none. */
  getOrSet(key, make) {
    if (this.has(key)) return this.get(key);
    const v = make();
    this.set(key, v);
    return v;
  }
}

/**
 * StateStore keeps resume states on the adapter's side (features.resumeState
 * with the state held by the server, as an application keeps it in its
 * database): put(state) returns a fresh id to send the client in the turn
 * answer's `state`, get(id) the state, or undefined for an id it does not
 * hold (never held, or forgotten past max).
 */
export class StateStore {
  constructor({ max = 4096 } = {}) {
    this.states = new BoundedMap(max);
  }

  put(state) {
    const id = randomUUID();
    this.states.set(id, state);
    return id;
  }

  get(id) {
    return typeof id === "string" ? this.states.get(id) : undefined;
  }
}
