// Codex CLI (the pinned @openai/codex) pointed at plaincall as a custom Responses provider, in
// front of a chat-only upstream: its requests (function tools, a `namespace` of tools, the
// hosted web_search) are converted, a call to a namespaced tool comes back under its own
// name and namespace, and Codex runs it and sends its output on the next turn.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { CHAT, MockUpstream, REPO, json, sse, startPlaincall, textChunks, toolCallChunks } from './support/mock_upstream.mjs';

const CODEX = path.join(REPO, 'tests', 'node', 'node_modules', '.bin', 'codex');

function runCodex(baseURL, prompt, { timeoutMs = 90_000 } = {}) {
  const home = mkdtempSync(path.join(os.tmpdir(), 'plaincall-codex-home-'));
  const work = mkdtempSync(path.join(os.tmpdir(), 'plaincall-codex-work-'));
  const provider = `model_providers.plaincall={name="plaincall",base_url="${baseURL}",wire_api="responses"}`;
  const args = ['exec', '--skip-git-repo-check', '-m', 'main-model', '-c', 'model_provider=plaincall', '-c', provider, prompt];
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OPENAI_') && !k.startsWith('CODEX_')));
  return new Promise((resolve, reject) => {
    const child = spawn(CODEX, args, { cwd: work, env: { ...env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`codex timed out:\n${stdout}\n${stderr}`)); }, timeoutMs);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

test('codex exec works through plaincall on a chat-only upstream, namespaced tools included', async (t) => {
  const main = await MockUpstream.start('main');
  main.script(
    CHAT,
    sse(toolCallChunks('call_w', 'multi_agent_v1__close_agent', { target: 'no-such-agent' })),
    sse(textChunks('All agents are done.')),
  );
  for (let i = 0; i < 4; i++) main.script('/v1/models', json({ object: 'list', data: [] }));
  const proxy = await startPlaincall({ upstream: main });
  t.after(async () => { await proxy.stop(); await main.stop(); });

  const run = await runCodex(proxy.baseURL, 'close agent a1');
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}\n${proxy.lines.join('\n')}`);
  assert.match(run.stdout, /All agents are done\./);

  const requests = main.chatRequests();
  assert.equal(requests.length, 2, proxy.lines.join('\n'));
  const names = requests[0].body.tools.map((tool) => tool.function.name);
  assert.ok(names.includes('exec_command'), names.join(','));
  assert.ok(names.some((name) => name.startsWith('multi_agent_v1__')), names.join(','));
  assert.ok(!names.includes('web_search'), names.join(','));
  // Codex recognised the call as its own tool's and ran it: its output, not "unsupported call".
  const toolMessage = requests[1].body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call_w');
  assert.ok(toolMessage, JSON.stringify(requests[1].body.messages.map((m) => m.role)));
  assert.doesNotMatch(String(toolMessage.content), /unsupported call/);
  const call = requests[1].body.messages.find((m) => m.role === 'assistant' && m.tool_calls)?.tool_calls[0];
  assert.equal(call.function.name, 'multi_agent_v1__close_agent');
});
