// What the coding-agent tests (opencode, qwen_code, cline, continue_cli; aider in
// tests/python/test_aider.py) share: a temporary home and work folder, an environment without
// the developer's settings, a chat-only upstream that plays a conversation by its state,
// plaincall with a translator in front of it, and the agent run as a subprocess under strace,
// so that a test can assert that it connected to nothing but loopback.
//
//   const { main, proxy } = await startMocks(t, { steps: [call(...), call(...), text('Done.')], translation });
//   const run = await runAgent(bin, args, { cwd: work, env: agentEnv(home, {...}) });
//   assertLoopbackOnly(t, run);

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { CHAT, MockUpstream, REPO, json, sse, startPlaincall, textChunks, toolCallChunks, translatorReply } from './mock_upstream.mjs';

export const BIN = path.join(REPO, 'tests', 'node', 'node_modules', '.bin');

/** A fresh home and work folder, removed when the test ends. */
export function tempDirs(t, name) {
  const home = mkdtempSync(path.join(os.tmpdir(), `plaincall-${name}-home-`));
  const work = mkdtempSync(path.join(os.tmpdir(), `plaincall-${name}-work-`));
  t.after(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });
  return { home, work };
}

/** The environment minus the developer's proxies, API keys and agent settings (every variable
 * starting with one of `drop`), with HOME and the XDG folders inside `home`. */
export function agentEnv(home, extra = {}, drop = []) {
  const prefixes = ['OPENAI_', 'ANTHROPIC_', 'XDG_', ...drop];
  const proxies = new Set(['http_proxy', 'https_proxy', 'all_proxy', 'no_proxy']);
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !proxies.has(k.toLowerCase()) && !prefixes.some((p) => k.startsWith(p))),
  );
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    ...extra,
  };
}

// -------------------------------------------------------------------------------------------
// The scripted upstream
// -------------------------------------------------------------------------------------------

export const call = (id, name, args) => ({ id, name, args });
export const text = (content) => ({ text: content });

/** A responder for the main upstream that plays `steps` by the conversation's state: a request
 * with tools gets the step numbered by the tool results it already carries (the last step
 * again once they are all used), a request without tools (a title, a summary) gets `aside`. */
export function conversation(steps, { aside = 'plaincall agent test' } = {}) {
  const play = (step) => sse(step.text !== undefined ? textChunks(step.text) : toolCallChunks(step.id, step.name, step.args));
  return (request) => {
    const body = request.body ?? {};
    if (!Array.isArray(body.tools) || body.tools.length === 0) return sse(textChunks(aside));
    const done = (body.messages ?? []).filter((m) => m.role === 'tool').length;
    return play(steps[Math.min(done, steps.length - 1)]);
  };
}

/** The main upstream playing `steps`, a translator answering `translation` (the structured
 * arguments) to every request, and plaincall in front of both; all stopped when the test ends. */
export async function startMocks(t, { steps, translation = null, aside }) {
  const main = await MockUpstream.start('main');
  const translator = await MockUpstream.start('translator');
  main.on(CHAT, conversation(steps, { aside }));
  main.on('/v1/models', () => json({ object: 'list', data: [{ id: 'main-model', object: 'model', created: 0, owned_by: 'plaincall-tests' }] }));
  translator.on(CHAT, () => translatorReply(translation ?? {}));
  t.after(async () => {
    await main.stop();
    await translator.stop();
  });
  const proxy = await startPlaincall({ upstream: main, translator });
  t.after(() => proxy.stop());
  return { main, translator, proxy };
}

/** The main-model requests that carried tools (the agent's turns, not its titles). */
export function agentTurns(main) {
  return main.chatRequests().filter((r) => Array.isArray(r.body?.tools) && r.body.tools.length > 0);
}

/** The tool of that name in a request, and the assistant call and tool result for `id`. */
export const toolNamed = (request, name) => request.body.tools.find((tool) => tool.function?.name === name);
export function callAndResult(request, id) {
  const messages = request.body.messages ?? [];
  const assistant = messages.find((m) => m.role === 'assistant' && (m.tool_calls ?? []).some((c) => c.id === id));
  const call = assistant?.tool_calls.find((c) => c.id === id);
  const result = messages.find((m) => m.role === 'tool' && m.tool_call_id === id);
  const content = Array.isArray(result?.content) ? result.content.map((p) => p.text ?? '').join('') : result?.content;
  return { call, result: result && { ...result, text: String(content ?? '') } };
}

// -------------------------------------------------------------------------------------------
// The agent as a subprocess, its connections traced
// -------------------------------------------------------------------------------------------

let straceWorks;
function canTrace() {
  if (straceWorks === undefined) {
    const probe = spawnSync('strace', ['-f', '-qq', '--seccomp-bpf', '-e', 'trace=connect', '-o', '/dev/null', 'true'], { stdio: 'ignore' });
    straceWorks = probe.status === 0;
  }
  return straceWorks;
}

/** Runs `command args` in `cwd` with `env`; under strace (when it works here) the address of
 * every connect/sendto/sendmsg is recorded. Resolves {code, stdout, stderr, traced, outside},
 * `outside` holding each address (with its port) that is not loopback and the names of the
 * DNS queries sent. */
export function runAgent(command, args, { cwd, env, timeoutMs = 150_000, input } = {}) {
  const traced = canTrace();
  const traceFile = path.join(env.HOME, '.connections.strace');
  const argv = traced
    ? ['strace', ['-f', '-qq', '--seccomp-bpf', '-s', '256', '-e', 'trace=connect,sendto,sendmsg,sendmmsg', '-o', traceFile, '--', command, ...args]]
    : [command, args];
  return new Promise((resolve, reject) => {
    // PWD too: OpenCode takes its project folder from it, not from its working directory.
    const child = spawn(argv[0], argv[1], { cwd, env: { ...env, PWD: cwd }, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (input !== undefined) child.stdin.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(command)} timed out after ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', (error) => { clearTimeout(timer); reject(error); });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, traced, outside: traced ? outsideAddresses(traceFile) : { addresses: [], names: [] } });
    });
  });
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.|0\.0\.0\.0$|::$)/;

/** The names in the DNS queries strace printed (a query's question is `\3api\10continue\3dev\0`). */
function dnsNames(line) {
  const names = [];
  for (const m of line.matchAll(/iov_base="((?:[^"\\]|\\.)*)"/g)) {
    const bytes = [];
    for (const piece of m[1].matchAll(/\\(\d{1,3})|\\(.)|([^\\])/g)) {
      if (piece[1] !== undefined) bytes.push(parseInt(piece[1], 8));
      else if (piece[2] !== undefined) bytes.push(({ n: 10, t: 9, r: 13, v: 11, f: 12 })[piece[2]] ?? piece[2].charCodeAt(0));
      else bytes.push(piece[3].charCodeAt(0));
    }
    if (bytes.length < 17) continue;
    const labels = [];
    for (let i = 12; i < bytes.length && bytes[i] > 0 && bytes[i] < 64; i += bytes[i] + 1) {
      labels.push(String.fromCharCode(...bytes.slice(i + 1, i + 1 + bytes[i])));
    }
    if (labels.length) names.push(labels.join('.'));
  }
  return names;
}

function outsideAddresses(traceFile) {
  let trace = '';
  try {
    trace = readFileSync(traceFile, 'utf8');
  } catch {
    return { addresses: ['(no strace output)'], names: [] };
  }
  const addresses = new Set();
  const names = new Set();
  for (const line of trace.split('\n')) {
    for (const m of line.matchAll(/inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)"/g)) {
      const address = m[1] ?? m[2];
      if (!LOOPBACK.test(address)) {
        const port = line.match(/sin6?_port=htons\((\d+)\)/)?.[1];
        addresses.add(port ? `${address}:${port}` : address);
      }
    }
    if (/sendto|sendmsg|sendmmsg/.test(line)) for (const name of dnsNames(line)) names.add(name);
  }
  return { addresses: [...addresses], names: [...names] };
}

/** No connection, datagram or DNS query of the agent's left loopback (when strace could tell).
 * `except` names hosts an agent always asks for, whatever it is told (Continue's version
 * check): their DNS queries, and connections to port 53 and 443 beside them, are let through. */
export function assertLoopbackOnly(t, run, { except = [] } = {}) {
  if (!run.traced) {
    t.diagnostic('strace is not available here: the agent\'s connections were not checked');
    return;
  }
  const { addresses, names } = run.outside;
  const queried = names.filter((name) => !except.includes(name));
  assert.deepEqual(queried, [], `the agent looked up hosts (${addresses.join(', ')})`);
  const reached = names.length && !queried.length ? addresses.filter((a) => !/:(53|443)$/.test(a)) : addresses;
  assert.deepEqual(reached, [], `the agent reached beyond loopback (DNS queries: ${names.join(', ') || 'none'})`);
  if (names.length) t.diagnostic(`looked up, as it always does: ${names.join(', ')}`);
}
