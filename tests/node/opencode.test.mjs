// OpenCode (the pinned opencode-ai) with a provider of its own (`@ai-sdk/openai-compatible`,
// baseURL plaincall's /v1) in front of a chat-only upstream, headless (`opencode run`): its
// `todowrite` (an array of objects) is rewritten, the main model's plain-English call to it is
// translated and OpenCode runs it, then it writes a file with its own `write` tool and prints
// the model's answer, without a connection beyond loopback (its plugin install is kept offline
// with npm_config_offline, its models.dev fetch and autoupdate are turned off).

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { BIN, agentEnv, agentTurns, assertLoopbackOnly, call, callAndResult, runAgent, startMocks, tempDirs, text, toolNamed } from './support/agents.mjs';

const TODO = 'write hello.txt';
const TODOS = { todos: [{ content: TODO, status: 'in_progress', priority: 'high' }] };
const ANSWER = 'Wrote hello.txt for you.';

test('opencode run writes a file and gets its todowrite translated through plaincall on a chat-only upstream', async (t) => {
  const { home, work } = tempDirs(t, 'opencode');
  const file = path.join(work, 'hello.txt');
  const { main, translator, proxy } = await startMocks(t, {
    steps: [
      call('call_todo', 'todowrite', { description: `one todo, "${TODO}", in progress, high priority` }),
      call('call_write', 'write', { filePath: file, content: 'hello from the main model\n' }),
      text(ANSWER),
    ],
    translation: TODOS,
  });
  writeFileSync(path.join(work, 'opencode.json'), JSON.stringify({
    $schema: 'https://opencode.ai/config.json',
    provider: {
      plaincall: {
        npm: '@ai-sdk/openai-compatible',
        name: 'plaincall',
        options: { baseURL: proxy.baseURL, apiKey: 'unused' },
        models: { 'main-model': { name: 'main-model' } },
      },
    },
    model: 'plaincall/main-model',
    autoupdate: false,
    share: 'disabled',
    permission: { edit: 'allow', bash: 'allow' },
  }));

  const env = agentEnv(home, {
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    // Its background install of @opencode-ai/plugin into the config folder, at every start.
    npm_config_offline: 'true',
  }, ['OPENCODE_']);
  const run = await runAgent(path.join(BIN, 'opencode'), ['run', 'Note the todo, then write hello.txt.'], { cwd: work, env });
  const logs = `${run.stdout}\n${run.stderr}\n${proxy.lines.slice(-20).join('\n')}`;
  assert.equal(run.code, 0, logs);

  // (a) the model's answer, (b) the file written by OpenCode's own write tool.
  assert.match(run.stdout, new RegExp(ANSWER.replace(/\./g, '\\.')), logs);
  assert.equal(readFileSync(file, 'utf8'), 'hello from the main model\n');

  // (c) the main model saw todowrite in plain-English form; OpenCode got it translated, ran it,
  // and its result came back on the next turn.
  const turns = agentTurns(main);
  assert.equal(turns.length, 3, logs);
  const todowrite = toolNamed(turns[0], 'todowrite');
  assert.deepEqual(Object.keys(todowrite.function.parameters.properties), ['description']);
  assert.ok(toolNamed(turns[0], 'write').function.parameters.properties.filePath, 'write is passed through');
  assert.equal(translator.chatRequests().length, 1);
  const { call: todoCall, result } = callAndResult(turns[1], 'call_todo');
  assert.ok(todoCall && result, JSON.stringify(turns[1].body.messages));
  assert.match(result.text, new RegExp(TODO));
  const { result: written } = callAndResult(turns[2], 'call_write');
  assert.ok(written, JSON.stringify(turns[2].body.messages));

  assertLoopbackOnly(t, run);
});
