// A scriptable mock of an OpenAI-compatible server (node:http only), and plaincall as a
// subprocess. Mirrors tests/python/mock_upstream.py and conftest.py.
//
//   const main = await MockUpstream.start('main');
//   main.script('/v1/chat/completions', json(completion(...)), sse([...events], {delay: 10}));
//   main.on('/v1/chat/completions', (request) => reply)   // answers once the queue is empty
//   main.requests   // [{method, path, headers, body}]
//
// Replies: json(body, {status, delay}) and sse(events, {delay, done}); SSE events are data
// payloads (objects are serialised), comment(text) for `: text` lines and sleep(ms).

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const CHAT = '/v1/chat/completions';

export const json = (body, { status = 200, delay: wait = 0 } = {}) => ({ kind: 'json', body, status, wait });
export const sse = (events, { delay: wait = 0, done = true } = {}) => ({ kind: 'sse', events, wait, done });
export const comment = (text) => ({ comment: text });
export const sleep = (ms) => ({ sleep: ms });

export class MockUpstream {
  constructor(name) {
    this.name = name;
    this.queues = new Map();
    this.responders = new Map();
    this.requests = [];
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.sockets = new Set();
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async start(name = 'mock') {
    const mock = new MockUpstream(name);
    await new Promise((resolve) => mock.server.listen(0, '127.0.0.1', resolve));
    return mock;
  }

  get port() {
    return this.server.address().port;
  }

  get baseURL() {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  script(route, ...replies) {
    if (!this.queues.has(route)) this.queues.set(route, []);
    this.queues.get(route).push(...replies);
    return this;
  }

  /** Answers every request to `route` with `responder(request)` once its queue is empty (as
   * on() in tests/python/mock_upstream.py); the request is {method, path, headers, body}. */
  on(route, responder) {
    this.responders.set(route, responder);
    return this;
  }

  chatRequests() {
    return this.requests.filter((r) => r.path === CHAT);
  }

  async stop() {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  async handle(req, res) {
    const chunks = [];
    for await (const piece of req) chunks.push(piece);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = null;
    }
    const route = req.url.split('?')[0];
    const request = { method: req.method, path: route, headers: req.headers, body };
    this.requests.push(request);
    const reply = this.queues.get(route)?.shift() ?? this.responders.get(route)?.(request) ?? json(
      { error: { message: `${this.name}: nothing scripted for ${req.method} ${route}`, type: 'mock_error' } },
      { status: 500 },
    );
    res.on('error', () => {});
    if (reply.kind === 'json') {
      if (reply.wait) await delay(reply.wait);
      const data = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status, { 'content-type': 'application/json', 'x-mock': this.name });
      res.end(data);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-mock': this.name });
    const events = reply.done ? [...reply.events, '[DONE]'] : reply.events;
    for (const event of events) {
      if (res.destroyed) return;
      if (event?.sleep !== undefined) {
        await delay(event.sleep);
      } else if (event?.comment !== undefined) {
        res.write(`: ${event.comment}\n\n`);
      } else {
        if (reply.wait) await delay(reply.wait);
        res.write(`data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`);
      }
    }
    res.end();
  }
}

// -------------------------------------------------------------------------------------------
// OpenAI-shaped bodies
// -------------------------------------------------------------------------------------------

const CREATED = 1_760_000_000;

export function completion(message, finishReason = 'stop') {
  return {
    id: 'chatcmpl-upstream-1',
    object: 'chat.completion',
    created: CREATED,
    model: 'main-model',
    choices: [{ index: 0, message, finish_reason: finishReason }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

export function translatorReply(content, { delay: wait = 0 } = {}) {
  return json(
    {
      id: 'chatcmpl-translator',
      object: 'chat.completion',
      created: CREATED,
      model: 'translator',
      choices: [{ index: 0, message: { role: 'assistant', content: typeof content === 'string' ? content : JSON.stringify(content) }, finish_reason: 'stop' }],
    },
    { delay: wait },
  );
}

export function chunk(delta, finishReason = null) {
  return {
    id: 'chatcmpl-stream-1',
    object: 'chat.completion.chunk',
    created: CREATED,
    model: 'main-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

export function textChunks(text, pieces = 3) {
  const step = Math.max(1, Math.ceil(text.length / pieces));
  const out = [chunk({ role: 'assistant', content: '' })];
  for (let i = 0; i < text.length; i += step) out.push(chunk({ content: text.slice(i, i + step) }));
  out.push(chunk({}, 'stop'));
  return out;
}

/** A streamed call: id, type and name first with empty arguments, then the arguments in
 * fragments of `every` characters, then a `tool_calls` finish. */
export function toolCallChunks(id, name, args, every = 5) {
  const text = typeof args === 'string' ? args : JSON.stringify(args);
  const out = [
    chunk({ role: 'assistant', content: null }),
    chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }] }),
  ];
  for (let i = 0; i < text.length; i += every) {
    out.push(chunk({ tool_calls: [{ index: 0, function: { arguments: text.slice(i, i + every) } }] }));
  }
  out.push(chunk({}, 'tool_calls'));
  return out;
}

// -------------------------------------------------------------------------------------------
// plaincall as a subprocess
// -------------------------------------------------------------------------------------------

export function plaincallBin() {
  if (process.env.PLAINCALL_DEV_BIN) return process.env.PLAINCALL_DEV_BIN;
  const target = process.env.CARGO_TARGET_DIR ? path.resolve(REPO, process.env.CARGO_TARGET_DIR) : path.join(REPO, 'target');
  return path.join(target, 'debug', 'plaincall');
}

/** Starts `plaincall serve` in front of `upstream` (and `translator`); resolves once the
 * JSON log line `plaincall listening` gives the bound address. */
export async function startPlaincall({ upstream, translator, env = {}, timeoutMs = 20_000 }) {
  const bin = plaincallBin();
  if (!existsSync(bin)) throw new Error(`plaincall binary not found at ${bin}: run cargo build or set PLAINCALL_DEV_BIN`);
  const childEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('PLAINCALL_') && k !== 'RUST_LOG'),
  );
  Object.assign(childEnv, {
    PLAINCALL_LISTEN: '127.0.0.1:0',
    PLAINCALL_LOG_FORMAT: 'json',
    PLAINCALL_UPSTREAM_URL: upstream.baseURL,
    ...(translator ? { PLAINCALL_TRANSLATOR_URL: translator.baseURL, PLAINCALL_TRANSLATOR_MODEL: 'translator' } : {}),
    ...env,
  });
  const child = spawn(bin, ['serve'], { cwd: REPO, env: childEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  const lines = [];
  const address = await new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => fail(new Error('timed out')), timeoutMs);
    const fail = (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`plaincall did not start (${error.message}); stderr:\n${lines.join('\n')}`));
    };
    // Read stderr for the whole life of the process, so that logging never blocks it.
    readline.createInterface({ input: child.stderr }).on('line', (line) => {
      lines.push(line);
      let record;
      try {
        record = JSON.parse(line);
      } catch {
        return;
      }
      const fields = record.fields ?? record;
      if (!settled && fields.message === 'plaincall listening' && fields.listen) {
        settled = true;
        clearTimeout(timer);
        resolve(fields.listen);
      }
    });
    child.on('error', fail);
    child.on('exit', (code) => fail(new Error(`exited with ${code}`)));
  });
  return {
    address,
    url: `http://${address}`,
    baseURL: `http://${address}/v1`,
    lines,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
