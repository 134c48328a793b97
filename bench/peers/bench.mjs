// The benchmarked model call (OpenAI Chat Completions, a JSON reply),
// made CALLS times in a row with fetch from Node, against one server:
//
//   simulator    the kit's simulator over loopback HTTP (benchserve)
//   net-http     a bare Go net/http handler answering the same reply (benchserve)
//   mock-llm     @dwmkerr/mock-llm over loopback HTTP, answering the same reply
//   test-server  @ai-sdk/test-server, answering the same reply inside this process
//
// usage: node bench.mjs BENCHSERVE TARGET[,TARGET...] [CALLS] [ROUNDS]
// BENCHSERVE is the path of a built internal/benchserve. For each target
// it prints one JSON line: calls, seconds, calls per second, latency p50
// and p99 (ms). With several targets they run in turn, ROUNDS times (3),
// and each target's median calls per second is printed with its ratio to
// the first target's, measured in the same run. The servers it starts are
// its children and end with each measurement, so whole-process figures of
// this command count them.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const [benchserve, targetsArg, callsArg, roundsArg] = process.argv.slice(2);
const calls = Number(callsArg ?? 2000);
const targets = (targetsArg ?? '').split(',').filter(Boolean);
const rounds = targets.length > 1 ? Number(roundsArg ?? 3) : 1;
const known = ['simulator', 'net-http', 'mock-llm', 'test-server'];
if (!benchserve || targets.length === 0 || targets.some((t) => !known.includes(t)) || !(calls > 0) || !(rounds > 0)) {
  console.error(`usage: node bench.mjs BENCHSERVE TARGET[,TARGET...] [CALLS] [ROUNDS]; targets: ${known.join(', ')}`);
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));

// firstLine starts a child and resolves with the first line it prints
// matching re.
async function firstLine(child, re) {
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    const m = line.match(re);
    if (m) return m;
  }
  throw new Error(`the server ended without printing ${re}`);
}

async function freePort() {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address();
  srv.close();
  await once(srv, 'close');
  return port;
}

// The request and the reply, from the simulator itself.
const callJSON = await new Promise((resolve, reject) => {
  const c = spawn(benchserve, ['call'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  c.stdout.on('data', (d) => (out += d));
  c.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`benchserve call: exit ${code}`))));
});
const { request, reply, path } = callJSON;

// measure serves target, makes the calls and returns the figures.
async function measure(target) {
let url;
let child;
let stop = async () => {};
switch (target) {
  case 'simulator':
  case 'net-http': {
    child = spawn(benchserve, [target], { stdio: ['pipe', 'pipe', 'inherit'] });
    url = (await firstLine(child, /^(http:\/\/\S+)$/))[1] + path;
    stop = async () => { child.stdin.end(); await once(child, 'exit'); };
    break;
  }
  case 'mock-llm': {
    const dir = mkdtempSync(join(tmpdir(), 'mock-llm-'));
    const config = join(dir, 'mock-llm.yaml');
    writeFileSync(config, JSON.stringify({
      rules: [{ path: '/v1/chat/completions', method: 'POST', match: '@', response: { status: 200, content: reply } }],
    }));
    const port = await freePort();
    child = spawn(process.execPath, [join(here, 'node_modules/@dwmkerr/mock-llm/dist/main.js'), '--config', config],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' } });
    await firstLine(child, /server running/);
    url = `http://127.0.0.1:${port}/v1/chat/completions`;
    stop = async () => { child.kill('SIGTERM'); await once(child, 'exit'); };
    break;
  }
  case 'test-server': {
    const { createTestServer } = await import('@ai-sdk/test-server');
    url = 'http://127.0.0.1:1/v1/chat/completions'; // never reached: the test server answers in-process
    const server = createTestServer({ [url]: { response: { type: 'json-value', body: JSON.parse(reply) } } });
    server.server.start();
    stop = async () => server.server.stop();
    break;
  }
}

try {
  const want = JSON.parse(reply).choices[0].message.content;
  const call = async () => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: request });
    const body = await res.json();
    if (res.status !== 200 || body.choices?.[0]?.message?.content !== want) {
      throw new Error(`${target} answered ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
    }
  };
  for (let i = 0; i < 50; i++) await call(); // warm up
  const lat = new Float64Array(calls);
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    const t = process.hrtime.bigint();
    await call();
    lat[i] = Number(process.hrtime.bigint() - t) / 1e6;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  lat.sort();
  const figures = {
    target, calls, seconds: +seconds.toFixed(3), callsPerSecond: Math.round(calls / seconds),
    p50ms: +lat[Math.floor(calls / 2)].toFixed(3), p99ms: +lat[Math.floor(calls * 0.99)].toFixed(3),
  };
  console.log(JSON.stringify(figures));
  return figures;
} finally {
  await stop();
}
}

const perSecond = Object.fromEntries(targets.map((t) => [t, []]));
for (let r = 0; r < rounds; r++) {
  for (const t of targets) perSecond[t].push((await measure(t)).callsPerSecond);
}
if (targets.length > 1) {
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const base = median(perSecond[targets[0]]);
  console.log(`\n== calls per second (median of ${rounds} rounds, in turn) and the ratio to ${targets[0]}, measured in this run`);
  for (const t of targets) {
    console.log(`${t.padEnd(12)} ${String(median(perSecond[t])).padStart(6)} calls/s   ${(median(perSecond[t]) / base).toFixed(2)}x ${targets[0]}`);
  }
}
