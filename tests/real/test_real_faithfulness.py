"""Faithfulness with real small models: a translated call, and a call the main model writes
itself, carries no value the request never gave (grounding), and a call the translator cannot
make is asked of the main model directly before anything fails (the direct ask). Assertions hold whatever the models write: they are
about what plaincall lets through."""

from __future__ import annotations

import json
import socket

import jsonschema
import pytest

from conftest import Plaincall, config_file, tool

SYSTEM = "You are a helpful assistant. Use the tools when they fit the request."

# Seven properties: `auto` rewrites it. The optional ones are what a small translator fills
# unasked (a date of birth, a frequent-flyer number, stops).
BOOK_FLIGHT = {"type": "function", "function": {
    "name": "book_flight", "description": "Book a flight for one passenger.",
    "parameters": {"type": "object", "required": ["destination", "passenger"], "properties": {
        "destination": {"type": "string", "description": "City to fly to."},
        "passenger": {"type": "string", "description": "Full name of the passenger."},
        "date_of_birth": {"type": "string", "description": "Passenger's date of birth, YYYY-MM-DD."},
        "frequent_flyer_number": {"type": "string"},
        "max_stops": {"type": "integer", "minimum": 0},
        "seat_class": {"type": "string", "enum": ["economy", "premium", "business", "first"]},
        "flexible_dates": {"type": "boolean"}}}}}

UNSAID = ["date_of_birth", "frequent_flyer_number", "max_stops", "seat_class"]


def test_a_translated_call_carries_nothing_the_request_did_not_say(native):
    response = native.client.chat.completions.create(
        model="qwen2.5-coder-0.5b", temperature=0,
        messages=[{"role": "system", "content": SYSTEM},
                  {"role": "user", "content": "Book a flight to Rome for Ana Lima."}],
        tools=[BOOK_FLIGHT], tool_choice="required")
    choice = response.choices[0]
    if not choice.message.tool_calls:
        assert choice.message.content and choice.message.content.strip(), "neither a call nor text"
        return
    for call in choice.message.tool_calls:
        args = json.loads(call.function.arguments)
        jsonschema.validate(args, BOOK_FLIGHT["function"]["parameters"], cls=jsonschema.Draft202012Validator)
        for key in UNSAID:
            assert key not in args, f"{key} was never said: {args}"
        assert args.get("flexible_dates") in (None, False), args


# Five flat properties: `auto` leaves it as it is, so the 0.5B writes its calls itself and
# plaincall only checks them. Shown alone, the 0.5B fills the meal and the date unasked.
LOG_FOOD = {"type": "function", "function": {
    "name": "log_food", "description": "Log a food item in the user's food diary.",
    "parameters": {"type": "object", "required": ["food_name", "portion_amount", "portion_unit"],
                   "properties": {
                       "food_name": {"type": "string"},
                       "portion_amount": {"type": "number"},
                       "portion_unit": {"type": "string", "enum": ["cup", "piece", "slice", "gram"]},
                       "meal_type": {"type": "string", "enum": ["breakfast", "lunch", "dinner", "snack"]},
                       "log_date": {"type": "string", "description": "When it was eaten, ISO 8601."}}}}}


def test_the_main_model_s_own_call_loses_what_nobody_said(native):
    response = native.client.chat.completions.create(
        model="qwen2.5-coder-0.5b", temperature=0,
        messages=[{"role": "system", "content": SYSTEM},
                  {"role": "user", "content": "Log 2 slices of pepperoni pizza."}],
        tools=[LOG_FOOD], tool_choice="required")
    choice = response.choices[0]
    if not choice.message.tool_calls:
        assert choice.message.content and choice.message.content.strip(), "neither a call nor text"
        return
    for call in choice.message.tool_calls:
        args = json.loads(call.function.arguments)
        jsonschema.validate(args, LOG_FOOD["function"]["parameters"], cls=jsonschema.Draft202012Validator)
        for key in ("meal_type", "log_date"):
            assert key not in args, f"{key} was never said: {args}"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def dead_translator(servers, tmp_path_factory):
    """plaincall whose only translator backend is a closed port: every translation fails."""
    config = config_file(tmp_path_factory.mktemp("dead"), servers["test-main"],
                         f"http://127.0.0.1:{closed_port()}/v1")
    proxy = Plaincall({}, config)
    yield proxy
    proxy.stop()


def test_a_failed_translation_asks_the_main_model_directly_before_failing(dead_translator):
    response = dead_translator.client.chat.completions.create(
        model="qwen2.5-coder-0.5b", temperature=0,
        messages=[{"role": "system", "content": SYSTEM},
                  {"role": "user", "content": "Remind me every day at 9am to check my email."}],
        tools=[tool("set_reminder")],
        tool_choice="required", max_tokens=300)
    choice = response.choices[0]
    translated = [line for line in dead_translator.lines if '"message":"translation"' in line]
    if translated:
        direct = dead_translator.lines_with("the main model's own call", "direct call failed too")
        # The main model was asked for the call in plain English: the direct ask followed.
        assert direct, "\n".join(dead_translator.lines[-20:])
    if choice.message.tool_calls:
        schema = tool("set_reminder")
        for call in choice.message.tool_calls:
            jsonschema.validate(json.loads(call.function.arguments), schema["function"]["parameters"],
                                cls=jsonschema.Draft202012Validator)
    else:
        assert choice.message.content and choice.message.content.strip(), "neither a call nor text"
