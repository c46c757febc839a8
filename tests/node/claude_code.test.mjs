// Claude Code (the pinned @anthropic-ai/claude-code) pointed at plaincall with
// ANTHROPIC_BASE_URL, in front of a chat-only upstream: its Messages requests (a system turn
// inside `messages`, its own top-level fields, `?beta=true`, some twenty tools) are converted
// and answered, headless (`claude -p`).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { CHAT, MockUpstream, REPO, sse, startPlaincall, textChunks } from './support/mock_upstream.mjs';

const CLAUDE = path.join(REPO, 'tests', 'node', 'node_modules', '.bin', 'claude');

function runClaude(baseURL, prompt, { timeoutMs = 120_000 } = {}) {
  const home = mkdtempSync(path.join(os.tmpdir(), 'plaincall-claude-home-'));
  const work = mkdtempSync(path.join(os.tmpdir(), 'plaincall-claude-work-'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ANTHROPIC_') && !k.startsWith('CLAUDE_')));
  Object.assign(env, {
    HOME: home,
    ANTHROPIC_BASE_URL: baseURL,
    ANTHROPIC_AUTH_TOKEN: 'unused',
    ANTHROPIC_MODEL: 'main-model',
    ANTHROPIC_SMALL_FAST_MODEL: 'main-model',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  });
  return new Promise((resolve, reject) => {
    const child = spawn(CLAUDE, ['-p', prompt, '--max-turns', '2'], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`claude timed out:\n${stdout}\n${stderr}`)); }, timeoutMs);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

test('claude -p works through plaincall on a chat-only upstream', async (t) => {
  const main = await MockUpstream.start('main');
  for (let i = 0; i < 8; i++) main.script(CHAT, sse(textChunks('Hello from the chat upstream.')));
  const proxy = await startPlaincall({ upstream: main });
  t.after(async () => { await proxy.stop(); await main.stop(); });

  const run = await runClaude(proxy.url, 'say hello');
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}\n${proxy.lines.slice(-20).join('\n')}`);
  assert.match(run.stdout, /Hello from the chat upstream\./);

  const requests = main.chatRequests();
  assert.ok(requests.length >= 1, proxy.lines.join('\n'));
  const withTools = requests.find((r) => Array.isArray(r.body.tools) && r.body.tools.length > 5);
  assert.ok(withTools, 'the main turn carried Claude Code\'s tools, converted');
  const roles = withTools.body.messages.map((m) => m.role);
  assert.equal(roles.filter((r) => r === 'system').length, 1, roles.join(','));
  assert.equal(roles[0], 'system');
  assert.ok(withTools.body.tools.every((tool) => tool.type === 'function' && tool.function.name), 'chat-shaped tools');
});
