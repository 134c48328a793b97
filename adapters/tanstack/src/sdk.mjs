// Loading one installed release line of TanStack AI from its own folder
// (versions/<line>/node_modules), so one adapter serves any installed line.
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

function readPackage(dir, name) {
  const file = path.join(dir, 'node_modules', name, 'package.json')
  if (!fs.existsSync(file)) return null
  return { dir: path.dirname(file), pkg: JSON.parse(fs.readFileSync(file, 'utf8')) }
}

// The ES module entry of a package: exports["."].import, or module, or main.
function entry({ dir, pkg }, sub = '.') {
  let target = pkg.exports?.[sub] ?? (sub === '.' ? pkg.exports : undefined)
  while (target && typeof target === 'object') {
    target = target.import ?? target.default
  }
  if (typeof target !== 'string') {
    if (sub !== '.') throw new Error(`${pkg.name} exports no ${sub}`)
    target = pkg.module ?? pkg.main ?? 'index.js'
  }
  return pathToFileURL(path.join(dir, target)).href
}

/**
 * load imports the line installed in dir: @tanstack/ai-client (the client
 * role), @tanstack/ai (chat(), tool definitions) and @tanstack/ai-openai
 * (the agent role's model adapter), whichever are installed.
 */
export async function load(dir) {
  const client = readPackage(dir, '@tanstack/ai-client')
  const ai = readPackage(dir, '@tanstack/ai')
  const openai = readPackage(dir, '@tanstack/ai-openai')
  if (!client && !ai) {
    throw new Error(`${dir}: neither @tanstack/ai-client nor @tanstack/ai is installed (run npm ci there)`)
  }
  const sdk = { dir, versions: {} }
  if (ai) {
    sdk.ai = await import(entry(ai))
    sdk.versions.ai = ai.pkg.version
  }
  if (client) {
    sdk.client = await import(entry(client))
    sdk.versions.client = client.pkg.version
  }
  if (openai) {
    sdk.openai = await import(entry(openai))
    sdk.versions.openai = openai.pkg.version
    if (openai.pkg.exports?.['./compatible']) {
      sdk.openaiCompatible = await import(entry(openai, './compatible'))
    }
  }
  return sdk
}

/** compare orders dotted versions numerically ("0.22.1" < "0.33.2"). */
export function compare(a, b) {
  const pa = a.split(/[.-]/).map(Number)
  const pb = b.split(/[.-]/).map(Number)
  for (let i = 0; i < 3; i++) {
    if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0)
  }
  return 0
}

/**
 * clientProtocol names the chat protocol and dialect an ai-client release
 * speaks with the @tanstack/ai release it depends on (read from their
 * sources): 0.23 and later resume RUN_FINISHED interrupts (@tanstack/ai
 * 0.44 and later); 0.7.14 to 0.22 read CUSTOM "value", TOOL_CALL_START's
 * toolCallName and TOOL_CALL_RESULT (@tanstack/ai 0.13 to 0.42); 0.5 to
 * 0.7.9 read CUSTOM "value", toolName and results in TOOL_CALL_END and post
 * {messages, data} (@tanstack/ai 0.6 to 0.10); 0.4 reads CUSTOM "data"
 * (@tanstack/ai 0.5). Older releases: none.
 */
export function clientProtocol(clientVersion) {
  if (compare(clientVersion, '0.23.0') >= 0) return { protocol: 'ag-ui', dialect: 'tanstack-ai-0.58' }
  if (compare(clientVersion, '0.7.14') >= 0) return { protocol: 'ag-ui-legacy', dialect: 'tanstack-ai-0.42' }
  if (compare(clientVersion, '0.5.0') >= 0) return { protocol: 'ag-ui-legacy', dialect: 'tanstack-ai-0.6' }
  if (compare(clientVersion, '0.4.0') >= 0) return { protocol: 'ag-ui-legacy', dialect: 'tanstack-ai-0.5' }
  return null
}
