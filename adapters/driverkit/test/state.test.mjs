import { test } from "node:test";
import assert from "node:assert/strict";

import { BoundedMap, StateStore } from "../index.mjs";

test("BoundedMap forgets the entry set longest ago", () => {
  const m = new BoundedMap(2);
  m.set("a", 1).set("b", 2);
  m.set("a", 10); // a is now the newest
  m.set("c", 3);
  assert.deepEqual([...m.entries()], [["a", 10], ["c", 3]]);
  assert.equal(m.getOrSet("c", () => assert.fail("made again")), 3);
  assert.equal(m.getOrSet("d", () => 4), 4);
  assert.deepEqual([...m.keys()], ["c", "d"]);
  assert.throws(() => new BoundedMap(0), /bound of 1 or more/);
});

test("StateStore gives each state a fresh id and forgets past its bound", () => {
  const s = new StateStore({ max: 2 });
  const a = s.put("state a");
  const b = s.put("state b");
  assert.notEqual(a, b);
  assert.equal(s.get(a), "state a");
  s.put("state c");
  assert.equal(s.get(a), undefined);
  assert.equal(s.get(b), "state b");
  assert.equal(s.get(undefined), undefined);
  assert.equal(s.get({ runStateId: b }), undefined);
});
