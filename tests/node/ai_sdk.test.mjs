// plaincall driven by the Vercel AI SDK: `openai('m')` speaks the Responses API and
// `@ai-sdk/anthropic` the Messages API. In both, a complex tool's call reaches `execute` with
// the structured arguments, the second step sends the tool result back, and the main model
// saw the one-field schema and, on the second step, its own plain-English call.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';

import {
  CHAT,
  MockUpstream,
  REPO,
  completion,
  json,
  sse,
  startPlaincall,
  textChunks,
  toolCallChunks,
  translatorReply,
} from './support/mock_upstream.mjs';

const CALL_ID = 'call_main_1';
const DESCRIPTION = 'daily at 09:00 to check email';
const STRUCTURED = { message: 'Check email', schedule_type: 'daily', at: '09:00' };
const FINAL_TEXT = 'Done: I will remind you every day at 09:00.';
const TOOL_RESULT = 'Reminder set: job 7';
const PROMPT = 'Remind me every day at nine to check my email.';

const fixture = (name) =>
  JSON.parse(readFileSync(path.join(REPO, 'tests', 'fixtures', 'tools', `${name}.json`), 'utf8')).function;

const nlCall = () => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id: CALL_ID, type: 'function', function: { name: 'set_reminder', arguments: JSON.stringify({ description: DESCRIPTION }) } }],
});

async function setup(t, mainReplies) {
  const main = await MockUpstream.start('main');
  const translator = await MockUpstream.start('translator');
  main.script(CHAT, ...mainReplies);
  translator.script(CHAT, translatorReply(STRUCTURED));
  const proxy = await startPlaincall({ upstream: main, translator });
  t.after(async () => {
    await proxy.stop();
    await main.stop();
    await translator.stop();
  });
  const received = [];
  const reminder = fixture('set_reminder');
  const tools = {
    set_reminder: tool({
      description: reminder.description,
      inputSchema: jsonSchema(reminder.parameters),
      execute: async (input) => {
        received.push(input);
        return TOOL_RESULT;
      },
    }),
  };
  return { main, proxy, received, tools };
}

function assertTwoSteps(main, received) {
  assert.deepEqual(received, [STRUCTURED]);
  const [first, second] = main.chatRequests().map((r) => r.body);
  const seen = first.tools.find((t) => t.function.name === 'set_reminder');
  assert.deepEqual(Object.keys(seen.function.parameters.properties), ['description']);
  const call = second.messages.find((m) => m.tool_calls).tool_calls[0];
  assert.equal(call.id, CALL_ID);
  assert.equal(JSON.parse(call.function.arguments).description, DESCRIPTION);
  const result = second.messages.find((m) => m.role === 'tool');
  assert.equal(result.tool_call_id, CALL_ID);
  assert.ok(result.content.endsWith(TOOL_RESULT), result.content);
}

const providers = {
  'openai (Responses)': (proxy) => createOpenAI({ baseURL: proxy.baseURL, apiKey: 'sk-test' })('main-model'),
  anthropic: (proxy) => createAnthropic({ baseURL: proxy.baseURL, apiKey: 'sk-test' })('main-model'),
};

for (const [name, model] of Object.entries(providers)) {
  test(`generateText with ${name}: two steps through a translated tool`, async (t) => {
    const { main, proxy, received, tools } = await setup(t, [
      json(completion(nlCall(), 'tool_calls')),
      json(completion({ role: 'assistant', content: FINAL_TEXT })),
    ]);
    const result = await generateText({ model: model(proxy), tools, stopWhen: stepCountIs(3), prompt: PROMPT, maxRetries: 0, maxOutputTokens: 512 });
    assert.equal(result.text, FINAL_TEXT);
    assertTwoSteps(main, received);
  });

  test(`streamText with ${name}: the streamed call reaches execute structured`, async (t) => {
    const { main, proxy, received, tools } = await setup(t, [
      sse(toolCallChunks(CALL_ID, 'set_reminder', { description: DESCRIPTION }, 5), { delay: 5 }),
      sse(textChunks(FINAL_TEXT)),
    ]);
    const result = streamText({ model: model(proxy), tools, stopWhen: stepCountIs(3), prompt: PROMPT, maxRetries: 0, maxOutputTokens: 512 });
    const parts = [];
    for await (const part of result.fullStream) {
      if (part.type === 'error') throw part.error;
      parts.push(part.type);
    }
    assert.ok(parts.includes('tool-call'), parts.join(','));
    assert.equal(await result.text, FINAL_TEXT);
    assertTwoSteps(main, received);
  });
}
