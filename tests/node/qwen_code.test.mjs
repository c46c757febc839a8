// Qwen Code (the pinned @qwen-code/qwen-code) on its OpenAI route (OPENAI_BASE_URL, plaincall's
// /v1) in front of a chat-only upstream, headless (`qwen -p --yolo`: without --yolo a headless
// run offers no write, edit or shell tool at all): its `tool_call` (the bridge to its deferred
// tools, `arguments` a nested object) is rewritten, the main model's plain-English call to it is
// translated and Qwen Code runs the deferred tool, then it writes a file with its own
// `write_file` and prints the model's answer, without a connection beyond loopback (usage
// statistics, telemetry, update checks and the memory subagent turned off in its settings).

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { BIN, agentEnv, agentTurns, assertLoopbackOnly, call, callAndResult, runAgent, startMocks, tempDirs, text, toolNamed } from './support/agents.mjs';

const ANSWER = 'No cron jobs yet; wrote hello.txt.';

test('qwen -p writes a file and gets its tool_call translated through plaincall on a chat-only upstream', async (t) => {
  const { home, work } = tempDirs(t, 'qwen');
  const file = path.join(work, 'hello.txt');
  const { main, translator, proxy } = await startMocks(t, {
    steps: [
      call('call_bridge', 'tool_call', { description: 'call the deferred tool cron_list with no arguments' }),
      call('call_write', 'write_file', { file_path: file, content: 'hello from the main model\n' }),
      text(ANSWER),
    ],
    translation: { name: 'cron_list', arguments: {} },
  });
  mkdirSync(path.join(home, '.qwen'));
  writeFileSync(path.join(home, '.qwen', 'settings.json'), JSON.stringify({
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    memory: { enableManagedAutoMemory: false },
  }));

  const env = agentEnv(home, {
    OPENAI_BASE_URL: proxy.baseURL,
    OPENAI_API_KEY: 'unused',
    OPENAI_MODEL: 'main-model',
    QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
  }, ['QWEN_', 'DASHSCOPE_']);
  const run = await runAgent(path.join(BIN, 'qwen'), ['-p', 'List the cron jobs, then write hello.txt.', '--yolo'], { cwd: work, env });
  const logs = `${run.stdout}\n${run.stderr}\n${proxy.lines.slice(-20).join('\n')}`;
  assert.equal(run.code, 0, logs);

  // (a) the model's answer, (b) the file written by Qwen Code's own write_file.
  assert.match(run.stdout, /No cron jobs yet; wrote hello\.txt\./, logs);
  assert.equal(readFileSync(file, 'utf8'), 'hello from the main model\n');

  // (c) the main model saw tool_call in plain-English form; Qwen Code got it translated, ran
  // cron_list through it, and its result came back on the next turn.
  const turns = agentTurns(main);
  assert.equal(turns.length, 3, logs);
  const bridge = toolNamed(turns[0], 'tool_call');
  assert.deepEqual(Object.keys(bridge.function.parameters.properties), ['description']);
  assert.deepEqual(toolNamed(turns[0], 'write_file').function.parameters.required, ['file_path', 'content']);
  assert.equal(translator.chatRequests().length, 1);
  const { call: bridged, result } = callAndResult(turns[1], 'call_bridge');
  assert.ok(bridged && result, JSON.stringify(turns[1].body.messages.slice(-2)));
  assert.match(result.text, /No active cron jobs/, result.text);
  const { result: written } = callAndResult(turns[2], 'call_write');
  assert.ok(written, JSON.stringify(turns[2].body.messages.slice(-2)));

  assertLoopbackOnly(t, run);
});
