// Codex CLI (the pinned @openai/codex) pointed at plaincall in front of a chat-only upstream,
// as a custom Responses provider and with its default provider and model: its requests
// (function tools, a `namespace` of tools, the freeform `apply_patch`, the hosted web_search)
// are converted; a namespaced call comes back under its own name and namespace, a freeform
// one as a `custom_tool_call`, and Codex runs each and sends its output on the next turn.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { CHAT, MockUpstream, REPO, json, sse, startPlaincall, textChunks, toolCallChunks } from './support/mock_upstream.mjs';

const CODEX = path.join(REPO, 'tests', 'node', 'node_modules', '.bin', 'codex');

// `provider: 'custom'`: a provider of its own with `wire_api = "responses"`; `'default'`:
// Codex's built-in OpenAI provider with only its base URL changed (0.169 reads it from
// `-c openai_base_url=...`), and its default model's tools.
function runCodex(baseURL, prompt, { timeoutMs = 90_000, provider = 'custom', work } = {}) {
  const home = mkdtempSync(path.join(os.tmpdir(), 'plaincall-codex-home-'));
  work ??= mkdtempSync(path.join(os.tmpdir(), 'plaincall-codex-work-'));
  const custom = `model_providers.plaincall={name="plaincall",base_url="${baseURL}",wire_api="responses"}`;
  const args = provider === 'custom'
    ? ['exec', '--skip-git-repo-check', '-m', 'main-model', '-c', 'model_provider=plaincall', '-c', custom, prompt]
    : ['exec', '--skip-git-repo-check', '-m', 'gpt-5.5', '-s', 'workspace-write', '-c', `openai_base_url=${baseURL}`, prompt];
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OPENAI_') && !k.startsWith('CODEX_')));
  if (provider !== 'custom') env.OPENAI_API_KEY = 'unused-by-a-local-model';
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

test('codex exec with its default provider and model applies a freeform apply_patch made on a chat-only upstream', async (t) => {
  const patch = '*** Begin Patch\n*** Add File: hello.txt\n+hello from the main model\n*** End Patch\n';
  const main = await MockUpstream.start('main');
  main.script(
    CHAT,
    sse(toolCallChunks('call_p', 'apply_patch', { input: patch })),
    sse(textChunks('Added hello.txt.')),
  );
  for (let i = 0; i < 4; i++) main.script('/v1/models', json({ object: 'list', data: [] }));
  const proxy = await startPlaincall({ upstream: main });
  t.after(async () => { await proxy.stop(); await main.stop(); });

  const work = mkdtempSync(path.join(os.tmpdir(), 'plaincall-codex-work-'));
  const run = await runCodex(proxy.baseURL, 'add hello.txt', { provider: 'default', work });
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}\n${proxy.lines.join('\n')}`);
  assert.match(run.stdout, /Added hello\.txt\./);

  // Codex took the call as its own freeform apply_patch and applied it.
  const file = path.join(work, 'hello.txt');
  assert.ok(existsSync(file), `${run.stdout}\n${run.stderr}`);
  assert.equal(readFileSync(file, 'utf8'), 'hello from the main model\n');

  const requests = main.chatRequests();
  assert.equal(requests.length, 2, proxy.lines.join('\n'));
  const tool = requests[0].body.tools.find((t) => t.function.name === 'apply_patch');
  assert.ok(tool, requests[0].body.tools.map((t) => t.function.name).join(','));
  assert.deepEqual(tool.function.parameters.required, ['input']);
  const names = requests[0].body.tools.map((t) => t.function.name);
  assert.ok(!names.includes('web_search') && !names.includes('tool_search'), names.join(','));
  // The next turn shows the main model its own call and Codex's result of applying it.
  const call = requests[1].body.messages.find((m) => m.role === 'assistant' && m.tool_calls)?.tool_calls[0];
  assert.equal(call.function.name, 'apply_patch');
  assert.deepEqual(JSON.parse(call.function.arguments), { input: patch });
  const output = requests[1].body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call_p');
  assert.ok(output, JSON.stringify(requests[1].body.messages.map((m) => m.role)));
  assert.match(String(output.content), /hello\.txt/);
});
