// An adapter's head: its command line, the installed SDK it loads, the
// HTTP server of driver protocol v1 and the URL on the first line of
// stdout. An adapter calls runAdapter with what is its own (its flags, its
// declarations, its SDK mapping) and the kit does the rest.

import { createServer } from "node:http";
import { appendFileSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

import { declare } from "./declare.mjs";
import { HTTPError, readJSON, sendError, sendJSON } from "./http.mjs";
import { checkTurn, either } from "./protocol.mjs";
import { agentTurn } from "./turn.mjs";

/** FlagError is a mistake on the adapter's command line: the adapter exits 2, naming it. */
export class FlagError extends Error {}

/**
 * parseFlags parses argv by spec: {name: {type: "string"|"boolean",
 * default, choices, help}}. A flag the spec does not know, a missing
 * value, a stray argument or a value outside its choices throws
 * FlagError naming it.
 */
export function parseFlags(argv, spec) {
  const options = {};
  for (const [name, f] of Object.entries(spec)) {
    options[name] = { type: f.type ?? "string" };
    if (f.default !== undefined) options[name].default = f.default;
  }
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options, strict: true, allowPositionals: false }));
  } catch (e) {
    throw new FlagError(e.message.replace(/\. To specify a positional argument.*$/s, ""));
  }
  for (const [name, f] of Object.entries(spec)) {
    if (f.choices && values[name] !== undefined && !f.choices.includes(values[name])) {
      throw new FlagError(`--${name} ${values[name]}: want ${either(f.choices)}`);
    }
  }
  return values;
}

/**
 * loadSDK loads an installed SDK version: dir is a version folder
 * (versions/<version>, made by the adapter's install.sh), holding the
 * SDK's node_modules and sdk.mjs (the adapter's one import of the SDK's
 * packages, copied there so that they resolve from that folder). It
 * returns {sdk, version, dir}, the version read from pkg's package.json.
 */
export async function loadSDK(dir, pkg) {
  const sdkDir = resolve(dir);
  let version;
  try {
    version = JSON.parse(readFileSync(join(sdkDir, "node_modules", pkg, "package.json"), "utf8")).version;
  } catch (e) {
    throw new FlagError(`--sdk ${dir}: no installed ${pkg} package (${e.message}); run ./install.sh VERSION first`);
  }
  const sdk = await import(pathToFileURL(join(sdkDir, "sdk.mjs")).href);
  return { sdk, version, dir: sdkDir };
}

/**
 * serve serves an adapter's roles over driver protocol v1 on listen
 * (HOST:PORT, 127.0.0.1:0 by default): GET /v1/info, POST /v1/agent/turn
 * (checkTurn, then agentTurn with the adapter's agent), the client role's
 * /v1/client/sessions and the server role's /v1/server/chats; a role the
 * adapter does not play is 501 NotImplemented (notPlayed says why), an
 * unknown path 404. A refused request gets the error envelope; a failure
 * of the adapter itself is 500 Internal, logged with its stack. It
 * resolves to {server, url, close}.
 *
 * ACK_ADAPTER_TRACE=FILE (or the trace option) appends every turn, its
 * request and its answer, to FILE as a JSON line.
 */
export function serve({ info, agent, client, server, notPlayed, listen = "127.0.0.1:0", trace = process.env.ACK_ADAPTER_TRACE, log = process.stderr }) {
  const roles = info.roles.join(" and ");
  const declined = (role) => new HTTPError(501, "NotImplemented", `${notPlayed ? `${notPlayed}: ` : ""}this adapter plays the ${roles} role${info.roles.length > 1 ? "s" : ""}, not the ${role} role`);
  let base;
  async function route(req, res) {
    const path = new URL(req.url, "http://adapter").pathname;
    if (path === "/v1/info" && req.method === "GET") return sendJSON(res, 200, info);
    if (path === "/v1/agent/turn" && req.method === "POST") {
      if (!agent) throw declined("agent");
      const body = await readJSON(req);
      checkTurn(body);
      const answer = await agentTurn(agent, body, info);
      if (trace) appendFileSync(trace, JSON.stringify({ request: body, answer }) + "\n");
      return sendJSON(res, 200, answer);
    }
    if (path === "/v1/client/sessions" || path.startsWith("/v1/client/sessions/")) {
      if (!client) throw declined("client");
      return client.route(req, res, path.slice("/v1/client/sessions".length));
    }
    if (path === "/v1/server/chats" || path.startsWith("/v1/server/chats/")) {
      if (!server) throw declined("server");
      return server.route(req, res, path.slice("/v1/server/chats".length), base);
    }
    throw new HTTPError(404, "NotFound", `${req.method} ${path}: no such endpoint`);
  }
  const http = createServer((req, res) => {
    route(req, res).catch((e) => {
      if (!(e instanceof HTTPError)) log.write(`adapter: ${e?.stack ?? e}\n`);
      if (!res.headersSent) sendError(res, e);
      else res.destroy();
    });
  });
  // Turns and the client's waits are bounded by the harness, not here; a
  // client that takes more than 10 s to send its headers is dropped.
  http.requestTimeout = 0;
  http.headersTimeout = 10_000;
  const at = listen.lastIndexOf(":");
  const host = at >= 0 ? listen.slice(0, at).replace(/^\[|\]$/g, "") : listen;
  const port = at >= 0 ? Number(listen.slice(at + 1)) : 0;
  return new Promise((resolvePromise, reject) => {
    http.once("error", reject);
    http.listen(port, host, () => {
      const a = http.address();
      base = `http://${a.family === "IPv6" ? `[${a.address}]` : a.address}:${a.port}`;
      const close = async () => {
        await Promise.all([client?.close?.(), server?.close?.()]);
        await new Promise((done) => {
          http.close(() => done());
          http.closeAllConnections();
        });
      };
      resolvePromise({ server: http, url: base, close });
    });
  });
}

/**
 * runAdapter is an adapter's whole main: it parses the command line (the
 * kit's flags and the adapter's own), loads the installed SDK, calls
 * setup to build the adapter's roles, serves them, prints the URL on the
 * first line of stdout, and stops on SIGINT or SIGTERM. A mistake on the
 * command line, or one setup throws as FlagError, exits 2 naming it.
 *
 *   usage      the command line, shown by --help and after a mistake
 *   sdk        {package, example}: the adapter takes --sdk DIR (required),
 *              an installed version folder whose node_modules hold package
 *   modelAPIs  {wire: [...], canonical: [...]}: the adapter takes
 *              --model-api wire|canonical (wire by default); setup gets the
 *              list of the one chosen
 *   flags      the adapter's own flags, as parseFlags takes them
 *   setup      async ({flags, sdk, sdkVersion, sdkDir, modelAPIs}) =>
 *              {info, agent?, client?, server?, notPlayed?}; info is checked
 *              by declare()
 *
 * Whatever stops the adapter before it serves (a bad flag, an address in
 * use, a declaration the protocol does not have, an SDK that fails to
 * load) exits 2 with the reason on stderr, before any URL is printed.
 */
export async function runAdapter({ usage, sdk: sdkSpec, modelAPIs: apiSpec, flags: own = {}, setup, argv = process.argv.slice(2), stdout = process.stdout, stderr = process.stderr, exit = (code) => process.exit(code) }) {
  const spec = { ...own, listen: { default: "127.0.0.1:0", help: "the address to serve on (HOST:PORT)" }, help: { type: "boolean" } };
  if (sdkSpec) spec.sdk = { help: `an installed version folder, e.g. ${sdkSpec.example}` };
  if (apiSpec) spec["model-api"] = { default: "wire", choices: Object.keys(apiSpec) };
  let served;
  try {
    const flags = parseFlags(argv, spec);
    if (flags.help) {
      stdout.write(`usage: ${usage}\n`);
      return exit(0);
    }
    let loaded = {};
    if (sdkSpec) {
      if (!flags.sdk) throw new FlagError(`--sdk DIR is required (an installed version folder, e.g. ${sdkSpec.example}; see install.sh)`);
      loaded = await loadSDK(flags.sdk, sdkSpec.package);
    }
    const roles = await setup({ flags, sdk: loaded.sdk, sdkVersion: loaded.version, sdkDir: loaded.dir, modelAPIs: apiSpec?.[flags["model-api"]] });
    const info = declare(roles.info);
    served = await serve({ ...roles, info, listen: flags.listen, log: stderr }).catch((e) => {
      throw new FlagError(`--listen ${flags.listen}: ${e.message}`);
    });
  } catch (e) {
    // Nothing was served: a mistake on the command line (with the usage),
    // an address that cannot be listened on, a declaration the protocol
    // does not have, an SDK that does not load.
    if (e instanceof FlagError) stderr.write(`adapter: ${e.message}\nusage: ${usage}\n`);
    else stderr.write(`adapter: ${e?.stack ?? e}\n`);
    return exit(2);
  }
  stdout.write(`${served.url}\n`);
  for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => served.close().then(() => exit(0)));
  return served;
}
