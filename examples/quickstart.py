"""One tool call through plaincall: the main model describes it in words, the call comes back
structured. Run from the repository root while scripts/quickstart.sh runs (pip install openai)."""
import json, os
from openai import OpenAI

client = OpenAI(base_url=os.environ.get("PLAINCALL_DEV_BASE_URL", "http://127.0.0.1:8787/v1"), api_key="unused")
tool = json.load(open("tests/fixtures/tools/set_reminder.json"))
reply = client.chat.completions.create(model="qwen2.5-coder-0.5b", tools=[tool], tool_choice="required", temperature=0,
    messages=[{"role": "user", "content": "Remind me every day at 09:00 to check my email."}])
message = reply.choices[0].message
for call in message.tool_calls or []:
    print(call.function.name, call.function.arguments)  # set_reminder {"message": ..., "schedule_type": "daily", ...}
if message.content:
    print(message.content)  # a small model may answer in words instead
