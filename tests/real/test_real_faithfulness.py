"""Faithfulness with real small models: a translated call, and a call the main model writes
itself, carries the values the request gave and no value it never gave (grounding), and a
call the translator cannot make is asked of the main model directly before anything fails
(the direct ask). Each test asserts the call its request asks for (values read leniently only
where a model may word them differently: case, the words around a name); text instead of the
call fails, except where the log shows the direct ask failed too."""

from __future__ import annotations

import socket

import pytest

from conftest import Plaincall, assert_daily_reminder, config_file, the_call, tool

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
    args = the_call(response.choices[0], BOOK_FLIGHT)
    assert "rome" in args["destination"].lower(), args
    passenger = args["passenger"].lower()
    assert "ana" in passenger and "lima" in passenger, args
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
    args = the_call(response.choices[0], LOG_FOOD)
    assert "pizza" in args["food_name"].lower(), args
    assert args["portion_amount"] == 2, args
    assert args["portion_unit"] == "slice", args
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
    if dead_translator.lines_with('"message":"translation"'):
        # The main model described the call; its translation failed (the translator is down),
        # so the main model was asked for the call itself, with every tool in full. A call that
        # comes back can only be that direct answer; no call means it failed too.
        direct = dead_translator.lines_with("asked with every tool in full, is delivered", "direct call failed too")
        assert direct, "no direct ask after the failed translation:\n" + "\n".join(dead_translator.lines[-20:])
        said = "is delivered" if choice.message.tool_calls else "direct call failed too"
        assert any(said in line for line in direct), (said, direct)
    else:
        # The main model wrote the real arguments, valid: delivered with no translator needed.
        assert choice.message.tool_calls, f"no translation and no call: {choice.message.content!r}"
    if choice.message.tool_calls:
        args = the_call(choice, tool("set_reminder"))
        assert_daily_reminder(args, (9, 0), "email")
    else:
        assert choice.message.content and choice.message.content.strip(), "neither a call nor text"
