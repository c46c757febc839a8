// plaincall driven by the official openai Node package: a complex tool's call streamed in
// plain-English form (fragmented arguments, a slow translator, keep-alive comments) reaches the
// client structured; a translation that needs more facts becomes a repair turn. Both
// `for await` accumulation and `chat.completions.stream()` are checked.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import OpenAI from 'openai';

import {
  CHAT,
  MockUpstream,
  REPO,
  json,
  completion,
  sse,
  startPlaincall,
  textChunks,
  toolCallChunks,
  translatorReply,
} from './support/mock_upstream.mjs';

const CALL_ID = 'call_main_1';
const DESCRIPTION = 'daily at 09:00 to check email';
const STRUCTURED = { message: 'Check email', schedule_type: 'daily', at: '09:00' };
const QUESTION = 'Which device should the reminder go to?';
const ASK_USER = 'When should I remind you?';
const USER = { role: 'user', content: 'Remind me every day at nine to check my email.' };
const TRANSLATOR_DELAY_MS = 1500;

const tool = (name) => JSON.parse(readFileSync(path.join(REPO, 'tests', 'fixtures', 'tools', `${name}.json`), 'utf8'));
const TOOLS = [tool('set_reminder'), tool('get_weather')];
const REQUEST = { model: 'main-model', messages: [USER], tools: TOOLS };

/** Fresh mocks and a fresh plaincall per test (the translation cache would otherwise answer
 * a repeated description without asking the translator). */
async function setup(t, { translator: translatorReplies, main: mainReplies }) {
  const main = await MockUpstream.start('main');
  const translator = await MockUpstream.start('translator');
  main.script(CHAT, ...mainReplies);
  translator.script(CHAT, ...translatorReplies);
  const proxy = await startPlaincall({
    upstream: main,
    translator,
    env: { PLAINCALL_TRANSLATION_KEEPALIVE_INTERVAL: '200ms' },
  });
  t.after(async () => {
    await proxy.stop();
    await main.stop();
    await translator.stop();
  });
  const client = new OpenAI({ baseURL: proxy.baseURL, apiKey: 'sk-test', maxRetries: 0, timeout: 30_000 });
  return { main, translator, proxy, client };
}

function nlCallStream() {
  return sse(toolCallChunks(CALL_ID, 'set_reminder', { description: DESCRIPTION }, 5), { delay: 10 });
}

/** What the main model saw: set_reminder in one-field form, get_weather untouched. */
function assertRewrittenTools(request) {
  const byName = Object.fromEntries(request.body.tools.map((t) => [t.function.name, t]));
  const parameters = byName.set_reminder.function.parameters;
  assert.deepEqual(Object.keys(parameters.properties), ['description']);
  assert.equal(parameters.properties.description.type, 'string');
  assert.deepEqual(parameters.required, ['description']);
  assert.deepEqual(byName.get_weather, TOOLS[1]);
}

async function accumulate(stream) {
  let content = '';
  let finish = null;
  const calls = [];
  for await (const piece of stream) {
    for (const choice of piece.choices) {
      content += choice.delta?.content ?? '';
      finish = choice.finish_reason ?? finish;
      for (const delta of choice.delta?.tool_calls ?? []) {
        calls[delta.index] ??= { id: '', name: '', arguments: '' };
        const slot = calls[delta.index];
        slot.id += delta.id ?? '';
        slot.name += delta.function?.name ?? '';
        slot.arguments += delta.function?.arguments ?? '';
      }
    }
  }
  return { content, finish, calls };
}

async function withHelper(client, body) {
  const stream = client.chat.completions.stream(body);
  const done = [];
  stream.on('tool_calls.function.arguments.done', (event) => done.push(event));
  const final = await stream.finalChatCompletion();
  const choice = final.choices[0];
  const calls = (choice.message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
  assert.deepEqual(
    done.map((e) => [e.name, JSON.parse(e.arguments)]),
    calls.map((c) => [c.name, JSON.parse(c.arguments)]),
  );
  return { content: choice.message.content ?? '', finish: choice.finish_reason, calls };
}

function assertTranslatedCall(out, main, translator) {
  assert.equal(out.finish, 'tool_calls');
  assert.equal(out.content, '');
  assert.equal(out.calls.length, 1);
  const [call] = out.calls;
  assert.equal(call.id, CALL_ID);
  assert.equal(call.name, 'set_reminder');
  assert.deepEqual(JSON.parse(call.arguments), STRUCTURED);
  const [request] = main.chatRequests();
  assert.equal(main.chatRequests().length, 1);
  assert.equal(request.body.stream, true);
  assertRewrittenTools(request);
  assert.equal(translator.chatRequests().length, 1);
  assert.equal(translator.chatRequests()[0].body.model, 'translator');
}

test('for await accumulates the translated call', async (t) => {
  const { main, translator, client } = await setup(t, {
    main: [nlCallStream()],
    translator: [translatorReply(STRUCTURED, { delay: TRANSLATOR_DELAY_MS })],
  });
  const stream = await client.chat.completions.create({ ...REQUEST, stream: true });
  assertTranslatedCall(await accumulate(stream), main, translator);
});

test('stream().finalChatCompletion() gives the translated call', async (t) => {
  const { main, translator, client } = await setup(t, {
    main: [nlCallStream()],
    translator: [translatorReply(STRUCTURED, { delay: TRANSLATOR_DELAY_MS })],
  });
  assertTranslatedCall(await withHelper(client, REQUEST), main, translator);
});

test('keep-alive comments go out while the translator works', async (t) => {
  const { proxy } = await setup(t, {
    main: [nlCallStream()],
    translator: [translatorReply(STRUCTURED, { delay: TRANSLATOR_DELAY_MS })],
  });
  const response = await fetch(`${proxy.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
    body: JSON.stringify({ ...REQUEST, stream: true }),
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type'), /^text\/event-stream/);
  const lines = (await response.text()).split('\n');
  const comments = lines.flatMap((line, i) => (line.startsWith(':') ? [i] : []));
  const firstCall = lines.findIndex((line) => line.includes('"tool_calls"'));
  assert.ok(comments.length >= 1, lines.join('\n'));
  assert.ok(comments[0] < firstCall, 'the keep-alives come before the translated call');
  assert.equal(lines.filter((l) => l.startsWith('data: ')).at(-1), 'data: [DONE]');
});

// The translator asks for a missing fact: plaincall runs a repair turn inside the same stream.
const CLARIFICATION = { error: 'missing_info', clarification_needed: QUESTION };

// Before a question about a rewritten tool goes back, with another tool offered, the main
// model is asked once with every tool in full; it answers in words, so the question stands.
const directAskDeclined = () => json(completion({ role: 'assistant', content: 'Which details do you need?' }));

function assertRepairTurn(out, main) {
  assert.equal(out.content, ASK_USER);
  assert.deepEqual(out.calls.filter(Boolean), []);
  assert.equal(out.finish, 'stop');
  const requests = main.chatRequests();
  assert.equal(requests.length, 3);
  assert.equal(requests[1].body.stream, false);
  assert.equal(requests[1].body.messages.length, 1);
  const messages = requests[2].body.messages;
  assert.equal(messages.length, 3);
  assert.deepEqual(messages[0], USER);
  const [assistant, toolMessage] = messages.slice(-2);
  assert.equal(assistant.role, 'assistant');
  assert.equal(assistant.tool_calls.length, 1);
  assert.equal(assistant.tool_calls[0].id, CALL_ID);
  assert.equal(assistant.tool_calls[0].function.name, 'set_reminder');
  assert.deepEqual(JSON.parse(assistant.tool_calls[0].function.arguments), { description: DESCRIPTION });
  assert.equal(toolMessage.role, 'tool');
  assert.equal(toolMessage.tool_call_id, CALL_ID);
  assert.ok(toolMessage.content.startsWith(`[TRANSLATION AMBIGUITY] ${QUESTION}`), toolMessage.content);
  assertRewrittenTools(requests[2]);
}

test('a clarification becomes a repair turn (for await)', async (t) => {
  const { main, client } = await setup(t, {
    main: [nlCallStream(), directAskDeclined(), sse(textChunks(ASK_USER))],
    translator: [translatorReply(CLARIFICATION, { delay: 500 })],
  });
  const stream = await client.chat.completions.create({ ...REQUEST, stream: true });
  assertRepairTurn(await accumulate(stream), main);
});

test('a clarification becomes a repair turn (stream helper)', async (t) => {
  const { main, client } = await setup(t, {
    main: [nlCallStream(), directAskDeclined(), sse(textChunks(ASK_USER))],
    translator: [translatorReply(CLARIFICATION, { delay: 500 })],
  });
  assertRepairTurn(await withHelper(client, REQUEST), main);
});

test('the non-streaming two-turn flow', async (t) => {
  const { main, translator, client } = await setup(t, {
    main: [
      json(
        completion(
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: CALL_ID, type: 'function', function: { name: 'set_reminder', arguments: JSON.stringify({ description: DESCRIPTION }) } }],
          },
          'tool_calls',
        ),
      ),
    ],
    translator: [translatorReply(STRUCTURED)],
  });
  const response = await client.chat.completions.create(REQUEST);
  const [call] = response.choices[0].message.tool_calls;
  assert.equal(response.choices[0].finish_reason, 'tool_calls');
  assert.equal(call.id, CALL_ID);
  assert.deepEqual(JSON.parse(call.function.arguments), STRUCTURED);
  assertRewrittenTools(main.chatRequests()[0]);
  assert.equal(translator.chatRequests().length, 1);

  // Turn 2: the message object goes back as received, with the tool's result.
  main.script(CHAT, json(completion({ role: 'assistant', content: 'Done.' })));
  const next = await client.chat.completions.create({
    ...REQUEST,
    messages: [USER, response.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'Reminder set: job 7' }],
  });
  assert.equal(next.choices[0].message.content, 'Done.');
  const [, assistant, toolMessage] = main.chatRequests()[1].body.messages;
  assert.equal(assistant.tool_calls[0].id, CALL_ID);
  assert.deepEqual(JSON.parse(assistant.tool_calls[0].function.arguments), { description: DESCRIPTION });
  assert.equal(
    toolMessage.content,
    '[Translated to: message="Check email", schedule_type="daily", at="09:00"]\nReminder set: job 7',
  );
  assert.equal(translator.chatRequests().length, 1);
});
