// Continue CLI (the pinned @continuedev/cli) with a model of `provider: openai` whose apiBase is
// plaincall's /v1, in front of a chat-only upstream, headless (`cn --config config.yaml --auto
// -p`): it writes a file with its own `Write`, reads it (Continue refuses an edit of a file it
// has not read in this session), then edits it with `MultiEdit` (offered to models it deems
// capable, by name: qwen, llama, gpt...; `edits` is an array of objects, rewritten): the main
// model's plain-English call is translated, Continue applies it and its result comes back on the
// next turn, and it prints the model's answer. It asks api.continue.dev for its latest version
// at every start, whatever it is told; nothing else leaves loopback.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { BIN, agentEnv, agentTurns, assertLoopbackOnly, call, callAndResult, runAgent, startMocks, tempDirs, text, toolNamed } from './support/agents.mjs';

const MODEL = 'qwen2.5-coder-0.5b';
const ANSWER = 'Wrote hello.txt and edited it.';

test('cn -p writes a file and gets its MultiEdit translated through plaincall on a chat-only upstream', async (t) => {
  const { home, work } = tempDirs(t, 'continue');
  const file = path.join(work, 'hello.txt');
  const { main, translator, proxy } = await startMocks(t, {
    steps: [
      call('call_write', 'Write', { filepath: file, content: 'hello from the main model\n' }),
      call('call_read', 'Read', { filepath: file }),
      call('call_edit', 'MultiEdit', { description: `in ${file}, replace "main model" with "translated edit"` }),
      text(ANSWER),
    ],
    translation: { file_path: file, edits: [{ old_string: 'main model', new_string: 'translated edit' }] },
  });
  const config = path.join(work, 'config.yaml');
  writeFileSync(config, [
    'name: plaincall',
    'version: 0.0.1',
    'schema: v1',
    'models:',
    `  - name: ${MODEL}`,
    '    provider: openai',
    `    model: ${MODEL}`,
    `    apiBase: ${proxy.baseURL}`,
    '    apiKey: unused',
    '    roles: [chat, edit, apply]',
    '',
  ].join('\n'));

  const env = agentEnv(home, { CONTINUE_METRICS_ENABLED: '0', CONTINUE_CLI_ENABLE_TELEMETRY: '0' }, ['CONTINUE_']);
  const run = await runAgent(path.join(BIN, 'cn'), ['--config', config, '--auto', '-p', 'Write hello.txt, then edit it.'], { cwd: work, env });
  const logs = `${run.stdout}\n${run.stderr}\n${proxy.lines.slice(-20).join('\n')}`;
  assert.equal(run.code, 0, logs);

  // (a) the model's answer, (b) the file written by Continue's own Write, then edited.
  assert.match(run.stdout, /Wrote hello\.txt and edited it\./, logs);
  assert.equal(readFileSync(file, 'utf8'), 'hello from the translated edit\n');

  // (c) the main model saw MultiEdit in plain-English form; Continue got it translated, applied
  // it, and its result came back on the next turn.
  const turns = agentTurns(main);
  assert.equal(turns.length, 4, logs);
  assert.deepEqual(Object.keys(toolNamed(turns[0], 'MultiEdit').function.parameters.properties), ['description']);
  assert.ok(toolNamed(turns[0], 'Write').function.parameters.properties.filepath, 'Write is passed through');
  assert.equal(translator.chatRequests().length, 1);
  assert.ok(callAndResult(turns[1], 'call_write').result, JSON.stringify(turns[1].body.messages.slice(-2)));
  const { call: edit, result } = callAndResult(turns[3], 'call_edit');
  assert.ok(edit && result, JSON.stringify(turns[3].body.messages.slice(-2)));
  assert.doesNotMatch(result.text, /error|must read|not been read/i, result.text);

  assertLoopbackOnly(t, run, { except: ['api.continue.dev'] });
});
