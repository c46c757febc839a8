// Cline CLI (the pinned cline) on its openai-compatible provider (`cline auth -p
// openai-compatible -b`, plaincall's /v1) in front of a chat-only upstream, headless (`cline
// "..."`, act mode with auto-approve) in its local session mode (CLINE_SESSION_BACKEND_MODE=local:
// otherwise it leaves a background hub daemon running after it exits): it creates a file with
// its own `editor`, then reads it back with `read_files` (an array of objects, rewritten): the
// main model's plain-English call is translated, Cline runs it and the file's content comes back
// on the next turn, and Cline prints the model's answer, without a connection beyond loopback
// (telemetry off in its global settings, IS_TEST=true for its feature-flag poll).

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { BIN, agentEnv, agentTurns, assertLoopbackOnly, call, callAndResult, runAgent, startMocks, tempDirs, text, toolNamed } from './support/agents.mjs';

const CLINE = path.join(BIN, 'cline');
const CONTENT = 'hello from the main model\n';
const ANSWER = 'Created hello.txt and read it back.';

test('cline writes a file and gets its read_files translated through plaincall on a chat-only upstream', async (t) => {
  const { home, work } = tempDirs(t, 'cline');
  const file = path.join(work, 'hello.txt');
  const { main, translator, proxy } = await startMocks(t, {
    steps: [
      call('call_write', 'editor', { path: file, new_text: CONTENT }),
      call('call_read', 'read_files', { description: `read the whole file ${file}` }),
      text(ANSWER),
    ],
    translation: { files: [{ path: file }] },
  });
  mkdirSync(path.join(home, '.cline', 'data', 'settings'), { recursive: true });
  writeFileSync(path.join(home, '.cline', 'data', 'settings', 'global-settings.json'), JSON.stringify({ telemetryOptOut: true, autoUpdateEnabled: false }));
  const env = agentEnv(home, { CLINE_SESSION_BACKEND_MODE: 'local', IS_TEST: 'true' }, ['CLINE_']);

  const auth = await runAgent(CLINE, ['auth', '-p', 'openai-compatible', '-k', 'unused', '-m', 'main-model', '-b', proxy.baseURL], { cwd: work, env });
  assert.equal(auth.code, 0, `${auth.stdout}\n${auth.stderr}`);
  assertLoopbackOnly(t, auth);

  const run = await runAgent(CLINE, ['Create hello.txt, then read it back.'], { cwd: work, env });
  const logs = `${run.stdout}\n${run.stderr}\n${proxy.lines.slice(-20).join('\n')}`;
  assert.equal(run.code, 0, logs);

  // (a) the model's answer, (b) the file written by Cline's own editor tool.
  assert.match(run.stdout, /Created hello\.txt and read it back\./, logs);
  assert.equal(readFileSync(file, 'utf8'), CONTENT);

  // (c) the main model saw read_files in plain-English form; Cline got it translated, read the
  // file and its content came back on the next turn.
  const turns = agentTurns(main);
  assert.equal(turns.length, 3, logs);
  assert.deepEqual(Object.keys(toolNamed(turns[0], 'read_files').function.parameters.properties), ['description']);
  assert.ok(toolNamed(turns[0], 'editor').function.parameters.properties.new_text, 'editor is passed through');
  assert.equal(translator.chatRequests().length, 1);
  assert.ok(callAndResult(turns[1], 'call_write').result, JSON.stringify(turns[1].body.messages.slice(-2)));
  const { call: read, result } = callAndResult(turns[2], 'call_read');
  assert.ok(read && result, JSON.stringify(turns[2].body.messages.slice(-2)));
  assert.match(result.text, /hello from the main model/, result.text);

  assertLoopbackOnly(t, run);
});
