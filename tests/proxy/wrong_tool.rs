//! A wrong tool is caught, not translated: when the translator finds the request is not for
//! the rewritten tool the main model called, the main model is told so once and offered the
//! tools again, never asked to put a question to the user about a tool they did not want.
//! Should it call the same tool again, its own call is asked for with the full schema: the
//! worst case is the model alone, one turn later. The same holds for a call the main model
//! wrote itself, to a tool it saw in full, when nothing the conversation says is among its
//! values: told once, it may call again, and its call then goes as written.

use serde_json::{json, Value};

use crate::support::{
    backend_toml, calls_message, chat, chat_stream_text, completion, first_call_arguments,
    fixture_tool, fold_stream, nl_call, stream_chunk, streamed_call, text_message, tool_call,
    translator_reply, MockServer, Proxy, Reply,
};

const USER: &str =
    "Is the front door locked? Check lock.front_door. Remind me Mondays at 08:00 if not.";
const OBJECTION: &str =
    r#"{"error": "wrong_tool", "reason": "a lock state check, not a reminder"}"#;

fn check_lock() -> Value {
    json!({"type": "function", "function": {
        "name": "check_lock",
        "description": "Read whether a lock is locked.",
        "parameters": {"type": "object",
            "properties": {"entity": {"type": "string"}},
            "required": ["entity"]}}})
}

fn request() -> Value {
    json!({"model": "main-model",
        "messages": [{"role": "user", "content": USER}],
        "tools": [fixture_tool("set_reminder"), check_lock()]})
}

fn first_turn() -> Reply {
    Reply::ok(completion(
        calls_message(vec![nl_call(
            "call_1",
            "set_reminder",
            "check whether lock.front_door is locked",
        )]),
        "tool_calls",
    ))
}

fn last_message(body: &Value) -> String {
    let messages = body["messages"].as_array().unwrap();
    messages[messages.len() - 1]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn the_main_model_is_told_and_picks_the_tool_that_fits() {
    let main = MockServer::scripted(vec![
        first_turn(),
        Reply::ok(completion(
            calls_message(vec![tool_call(
                "call_2",
                "check_lock",
                &json!({"entity": "lock.front_door"}),
            )]),
            "tool_calls",
        )),
    ])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(OBJECTION)]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (status, body) = chat(&proxy, &request()).await;
    assert_eq!(status, 200, "{body}");
    let calls = body["choices"][0]["message"]["tool_calls"]
        .as_array()
        .unwrap();
    assert_eq!(calls.len(), 1, "{body}");
    assert_eq!(calls[0]["function"]["name"], "check_lock");
    assert_eq!(translator.chat_requests().len(), 1, "not translated again");
    let requests = main.chat_requests();
    assert_eq!(requests.len(), 2, "one repair turn, no direct ask");
    let repair = requests[1].json();
    let told = last_message(&repair);
    assert!(
        told.starts_with("[WRONG TOOL] This request is not for set_reminder: a lock state check, not a reminder."),
        "{told}"
    );
    assert!(!told.contains("ask the user"), "{told}");
    assert_eq!(tool_names(&repair), ["set_reminder", "check_lock"]);
    assert!(repair.get("tool_choice").is_none());
    assert!(proxy
        .metrics()
        .contains("plaincall_translations_total{tool=\"set_reminder\",outcome=\"wrong_tool\"} 1"));
}

#[tokio::test]
async fn a_main_model_that_insists_gets_its_own_call_with_the_full_schema() {
    let own = json!({"message": "Check the front door lock", "schedule_type": "weekly",
        "at": "08:00", "day_of_week": "mon"});
    let main = MockServer::scripted(vec![
        first_turn(),
        // Told, it calls the same tool again.
        Reply::ok(completion(
            calls_message(vec![nl_call(
                "call_2",
                "set_reminder",
                "remind me Mondays at 08:00 to check lock.front_door",
            )]),
            "tool_calls",
        )),
        // The direct ask.
        Reply::ok(completion(
            calls_message(vec![tool_call("call_direct", "set_reminder", &own)]),
            "tool_calls",
        )),
    ])
    .await;
    let translator = MockServer::scripted(vec![
        translator_reply(OBJECTION),
        translator_reply(OBJECTION),
    ])
    .await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (status, body) = chat(&proxy, &request()).await;
    assert_eq!(status, 200, "{body}");
    let call = &body["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "set_reminder", "{body}");
    assert_eq!(call["id"], "call_2");
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args["schedule_type"], "weekly");
    assert_eq!(translator.chat_requests().len(), 2);
    let requests = main.chat_requests();
    assert_eq!(
        requests.len(),
        3,
        "the first turn, one repair turn, the direct ask"
    );
    let direct = requests[2].json();
    assert!(
        direct.get("tool_choice").is_none(),
        "the client's own: none"
    );
    assert!(direct["tools"][0]["function"]["parameters"]["properties"]
        .get("schedule_type")
        .is_some());
}

/// What a translator makes up when every field of the tool is foreign to the request.
const MADE_UP: &str =
    r#"{"message": "Go outside to play", "schedule_type": "once", "at": "2026-11-26T12:00:00"}"#;

fn asking(user: &str, tool: &str) -> Value {
    json!({"model": "main-model",
        "messages": [{"role": "user", "content": user}],
        "tools": [fixture_tool(tool)]})
}

#[tokio::test]
async fn a_translation_of_values_nobody_said_is_caught_as_a_wrong_tool() {
    // No translator objection here: the values alone show the call is for another request.
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call("call_1", "set_reminder", "the weather")]),
            "tool_calls",
        )),
        Reply::ok(completion(
            text_message("I cannot look up the weather."),
            "stop",
        )),
    ])
    .await;
    let translator = MockServer::start(|_| translator_reply(MADE_UP)).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let mut request = asking("What is the weather in Paris right now?", "set_reminder");
    // Words of the instructions are not what the conversation is about.
    let system = json!({"role": "system", "content": "Suggest some play when the user is bored."});
    request["messages"]
        .as_array_mut()
        .unwrap()
        .insert(0, system);
    let (status, body) = chat(&proxy, &request).await;
    assert_eq!(status, 200, "{body}");
    let message = &body["choices"][0]["message"];
    assert!(message["tool_calls"].is_null(), "{body}");
    assert_eq!(message["content"], "I cannot look up the weather.");
    let requests = main.chat_requests();
    assert_eq!(requests.len(), 2, "one repair turn");
    let told = last_message(&requests[1].json());
    assert!(
        told.starts_with("[WRONG TOOL] This request is not for set_reminder: nothing the conversation says is among its values (message, schedule_type, at)."),
        "{told}"
    );
    assert!(proxy
        .metrics()
        .contains("plaincall_grounding_nothing_said_total 1"));
}

#[tokio::test]
async fn a_call_with_a_value_said_one_value_or_an_unread_language_goes_out() {
    // Each must still reach the client: one value said (the time), a tool of one value said
    // in other words ("the French capital"), a request grounding cannot read, a call the
    // assistant proposed and the user accepted, and one an image may hold. (A reminder with
    // no time said is asked about: `questions` tests.)
    let cases = [
        ("Remind me on 2026-11-26 at noon.", "set_reminder", MADE_UP),
        (
            "How is the sky over the French capital?",
            "get_weather",
            r#"{"city": "Paris"}"#,
        ),
        ("パリの天気を教えて", "set_reminder", MADE_UP),
        // Values the user accepted where the assistant proposed them.
        ("Yes, please.", "set_reminder", MADE_UP),
        // Values that may come from an image the user sent.
        ("Set this as a reminder.", "set_reminder", MADE_UP),
    ];
    for (user, tool, answer) in cases {
        let main = MockServer::scripted(vec![Reply::ok(completion(
            calls_message(vec![nl_call("call_1", tool, "as the user said")]),
            "tool_calls",
        ))])
        .await;
        let answer = answer.to_owned();
        let translator = MockServer::start(move |_| translator_reply(&answer)).await;
        let toml = format!(
            "{}[translation.tools]\nget_weather = \"nl\"\n",
            backend_toml(&translator.url())
        );
        let proxy = Proxy::start(&main.url(), &toml).await;
        let mut request = asking(user, tool);
        if user.starts_with("Yes") {
            let proposal = json!({"role": "assistant",
                "content": "Shall I remind you on 2026-11-26 at noon to go outside to play?"});
            request["messages"]
                .as_array_mut()
                .unwrap()
                .insert(0, proposal);
        }
        if user.starts_with("Set this") {
            request["messages"][0]["content"] = json!([
                {"type": "text", "text": user},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
            ]);
        }
        let (status, body) = chat(&proxy, &request).await;
        assert_eq!(status, 200, "{body}");
        let call = &body["choices"][0]["message"]["tool_calls"][0];
        assert_eq!(call["function"]["name"], tool, "{user}: {body}");
        assert_eq!(main.chat_requests().len(), 1, "{user}: no repair turn");
        assert!(proxy
            .metrics()
            .contains("plaincall_grounding_nothing_said_total 0"));
    }
}

#[tokio::test]
async fn values_worked_out_from_what_was_said_go_out() {
    // Two values no rule traces ("AAPL" for Apple), a list of one ("zucchini" for
    // courgettes): too few to tell a call for another request from one worked out.
    let quote = json!({"type": "function", "function": {
        "name": "get_quote", "description": "A stock's latest price.",
        "parameters": {"type": "object", "properties": {
            "symbol": {"type": "string"}, "exchange": {"type": "string"},
            "fields": {"type": "array", "items": {"type": "string"}}},
            "required": ["symbol"]}}});
    let cases = [
        (
            "What's Apple trading at?",
            r#"{"symbol": "AAPL", "exchange": "NASDAQ"}"#,
        ),
        (
            "What's Apple trading at?",
            r#"{"symbol": "AAPL", "fields": ["zucchini"]}"#,
        ),
    ];
    for (user, answer) in cases {
        let main = MockServer::scripted(vec![Reply::ok(completion(
            calls_message(vec![nl_call("call_1", "get_quote", "Apple's price")]),
            "tool_calls",
        ))])
        .await;
        let answer = answer.to_owned();
        let translator = MockServer::start(move |_| translator_reply(&answer)).await;
        let toml = format!(
            "{}[translation.tools]\nget_quote = \"nl\"\n",
            backend_toml(&translator.url())
        );
        let proxy = Proxy::start(&main.url(), &toml).await;
        let request = json!({"model": "main-model",
            "messages": [{"role": "user", "content": user}], "tools": [quote.clone()]});
        let (status, body) = chat(&proxy, &request).await;
        assert_eq!(status, 200, "{body}");
        let call = &body["choices"][0]["message"]["tool_calls"][0];
        assert_eq!(call["function"]["name"], "get_quote", "{body}");
        assert!(proxy
            .metrics()
            .contains("plaincall_grounding_nothing_said_total 0"));
    }
}

fn flight_search() -> Value {
    json!({"type": "function", "function": {
        "name": "Flights_4_SearchRoundtripFlights",
        "description": "Search for roundtrip flights between two airports.",
        "parameters": {"type": "object", "properties": {
            "origin_airport": {"type": "string"},
            "destination_airport": {"type": "string"},
            "departure_date": {"type": "string", "description": "YYYY-MM-DD"},
            "number_of_tickets": {"type": "integer"},
            "seating_class": {"type": "string", "enum": ["Economy", "Business"], "default": "Economy"}},
            "required": ["origin_airport", "destination_airport", "departure_date"]}}})
}

fn hotel_search() -> Value {
    json!({"type": "function", "function": {
        "name": "Hotels_4_SearchHotel",
        "description": "Search for hotels in a city.",
        "parameters": {"type": "object", "properties": {
            "location": {"type": "string"}, "number_of_rooms": {"type": "integer"}},
            "required": ["location"]}}})
}

/// The main model's call to the flight tool, translated into `answer`, for `user`, with the
/// hotel tool offered too: whether it reached the client, what the main model was told when
/// it did not, and the metrics.
async fn flight_call(user: &str, answer: &str) -> (bool, Option<String>, String) {
    flight_call_offering(user, answer, vec![flight_search(), hotel_search()]).await
}

async fn flight_call_offering(
    user: &str,
    answer: &str,
    tools: Vec<Value>,
) -> (bool, Option<String>, String) {
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call(
                "call_1",
                "Flights_4_SearchRoundtripFlights",
                "three tickets",
            )]),
            "tool_calls",
        )),
        // With another tool offered, a question is preceded by the direct ask (every tool in
        // full), answered here in words: the question stands.
        Reply::ok(completion(text_message("I need more details."), "stop")),
        Reply::ok(completion(
            text_message("Which city are you flying from?"),
            "stop",
        )),
    ])
    .await;
    let answer = answer.to_owned();
    let translator = MockServer::start(move |_| translator_reply(&answer)).await;
    let toml = format!(
        "{}[translation.tools]\nFlights_4_SearchRoundtripFlights = \"nl\"\n",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &toml).await;
    let request = json!({"model": "main-model",
        "messages": [{"role": "user", "content": user}], "tools": tools});
    let (status, body) = chat(&proxy, &request).await;
    assert_eq!(status, 200, "{body}");
    let delivered = !body["choices"][0]["message"]["tool_calls"].is_null();
    let requests = main.chat_requests();
    // The last turn the main model was asked for: the repair turn where there was one.
    let told = (requests.len() > 1).then(|| last_message(&requests[requests.len() - 1].json()));
    (delivered, told, proxy.metrics())
}

#[tokio::test]
async fn a_call_whose_required_values_nobody_said_for_a_tool_nobody_named_is_caught() {
    // Only the count is said ("three hotel rooms"); the airports and the date are made up,
    // and nothing of the request is about flights.
    let (delivered, told, metrics) = flight_call(
        "My friends and I would like help finding three hotel rooms in Philadelphia please.",
        r#"{"origin_airport": "PHL", "destination_airport": "JFK", "departure_date": "2026-12-01", "number_of_tickets": 3}"#,
    )
    .await;
    assert!(!delivered);
    let told = told.expect("a repair turn");
    assert!(
        told.starts_with("[WRONG TOOL] This request is not for Flights_4_SearchRoundtripFlights: the conversation gives none of what it requires (origin_airport, destination_airport, departure_date) and names another tool's subject"),
        "{told}"
    );
    assert!(metrics.contains("plaincall_grounding_nothing_said_total 1"));
}

#[tokio::test]
async fn a_call_for_a_named_tool_or_with_a_required_value_said_goes_out() {
    let made_up = r#"{"origin_airport": "JFK", "destination_airport": "LAX", "departure_date": "2026-12-01", "number_of_tickets": 3}"#;
    // The airports worked out from the cities, the date said: the request names flights.
    let (delivered, told, metrics) = flight_call(
        "Find three seats on flights from New York to LA on 2026-12-01.",
        made_up,
    )
    .await;
    assert!(delivered, "{told:?}");
    assert!(metrics.contains("plaincall_grounding_nothing_said_total 0"));
    // The date made up: no wrong tool, a question for the date (the one fact nobody can work
    // out), in each case below.
    let goes_on = |delivered: bool, told: &Option<String>| {
        delivered
            || told
                .as_deref()
                .is_some_and(|t| t.contains("does not say departure_date"))
    };
    // Nothing named at all ("plane tickets"), in English or another language: the airports
    // are worked out, not made up.
    for user in [
        "Find three plane tickets from New York to LA.",
        "Busca tres billetes de avión de Nueva York a Los Ángeles.",
    ] {
        let (delivered, told, metrics) = flight_call(user, made_up).await;
        assert!(goes_on(delivered, &told), "{user}: {told:?}");
        assert!(metrics.contains("plaincall_grounding_nothing_said_total 0"));
    }
    // The hotel request with no other tool offered: nothing tells it is for another.
    let (delivered, told, _) = flight_call_offering(
        "My friends and I would like help finding three hotel rooms in Philadelphia please.",
        made_up,
        vec![flight_search()],
    )
    .await;
    assert!(goes_on(delivered, &told), "{told:?}");
    // One required value said (the airport code) ties the call to the request.
    let (delivered, told, metrics) = flight_call(
        "Three of us go from JFK to the coast, what is there?",
        made_up,
    )
    .await;
    assert!(goes_on(delivered, &told), "{told:?}");
    assert!(metrics.contains("plaincall_grounding_nothing_said_total 0"));
}

/// A car search the main model sees in full (four flat properties: checked, not rewritten).
fn car_search() -> Value {
    json!({"type": "function", "function": {
        "name": "get_cars", "description": "Cars available to rent.",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string"}, "start_date": {"type": "string", "format": "date"},
            "end_date": {"type": "string", "format": "date"}, "pickup_time": {"type": "string"}},
        "required": ["city", "start_date", "end_date", "pickup_time"]}}})
}

/// What a weak main model makes up for "I'd like to look for a rental vehicle."
fn made_up_cars() -> Value {
    json!({"city": "Los Angeles, CA", "start_date": "2026-01-01", "end_date": "2026-01-31",
        "pickup_time": "14:00"})
}

fn own_car_call(id: &str, stream: bool) -> Reply {
    match stream {
        false => Reply::ok(completion(
            calls_message(vec![tool_call(id, "get_cars", &made_up_cars())]),
            "tool_calls",
        )),
        true => streamed_call(id, "get_cars", &made_up_cars().to_string(), 9),
    }
}

fn asking_for_cars(user: &str, stream: bool) -> Value {
    json!({"model": "main-model", "stream": stream,
        "messages": [{"role": "user", "content": user}],
        "tools": [car_search()]})
}

async fn served(proxy: &Proxy, request: &Value) -> Value {
    if request["stream"] == true {
        return fold_stream(&chat_stream_text(proxy, request).await);
    }
    let (status, body) = chat(proxy, request).await;
    assert_eq!(status, 200, "{body}");
    body["choices"][0]["message"].clone()
}

#[tokio::test]
async fn the_model_s_own_call_of_values_nobody_said_is_caught_once() {
    for stream in [false, true] {
        let question = "Sure: in which city, and from when to when?";
        let answer = match stream {
            false => Reply::ok(completion(text_message(question), "stop")),
            true => Reply::sse(vec![
                stream_chunk(json!({"role": "assistant", "content": question}), None),
                stream_chunk(json!({}), Some("stop")),
            ]),
        };
        let main = MockServer::scripted(vec![own_car_call("call_1", stream), answer]).await;
        let proxy = Proxy::start(&main.url(), "").await;
        let request = asking_for_cars("I'd like to look for a rental vehicle.", stream);
        let message = served(&proxy, &request).await;
        let no_call = message["tool_calls"].as_array().is_none_or(Vec::is_empty);
        assert!(no_call, "stream={stream}: {message}");
        assert_eq!(message["content"], question);
        let requests = main.chat_requests();
        assert_eq!(requests.len(), 2, "stream={stream}: one repair turn");
        let told = last_message(&requests[1].json());
        assert!(
            told.starts_with("[WRONG TOOL] This request is not for get_cars: nothing the conversation says is among its values (city, start_date, end_date, pickup_time)."),
            "stream={stream}: {told}"
        );
        assert!(proxy
            .metrics()
            .contains("plaincall_grounding_nothing_said_total 1"));
    }
}

#[tokio::test]
async fn a_main_model_that_calls_again_after_being_told_gets_its_call_as_written() {
    let main = MockServer::scripted(vec![
        own_car_call("call_1", false),
        own_car_call("call_2", false),
    ])
    .await;
    let proxy = Proxy::start(&main.url(), "").await;
    let message = served(&proxy, &asking_for_cars("Find me a rental car.", false)).await;
    assert_eq!(message["tool_calls"][0]["id"], "call_2", "{message}");
    assert_eq!(first_call_arguments(&message), made_up_cars());
    assert_eq!(main.chat_requests().len(), 2, "told once, then trusted");
}

#[tokio::test]
async fn the_model_s_own_call_with_a_value_said_or_proposed_goes_out() {
    // Each must reach the client untouched, with no repair turn: one value said (the city),
    // one said in other words (the pick-up time), values the assistant proposed and the user accepted, a
    // request grounding cannot read, and grounding off.
    let cases: [(&str, Option<&str>, &str); 5] = [
        ("I need a rental car in Los Angeles, CA.", None, ""),
        (
            "A rental car from New Year's Day to the end of January, picked up at 2 pm.",
            None,
            "",
        ),
        (
            "Yes, go ahead.",
            Some("Shall I look for cars in Los Angeles from 2026-01-01 to 2026-01-31, picked up at 14:00?"),
            "",
        ),
        ("レンタカーを探したいです。", None, ""),
        (
            "I'd like to look for a rental vehicle.",
            None,
            "[translation]\ngrounding = \"off\"\n",
        ),
    ];
    for (user, proposal, config) in cases {
        let main = MockServer::scripted(vec![own_car_call("call_1", false)]).await;
        let proxy = Proxy::start(&main.url(), config).await;
        let mut request = asking_for_cars(user, false);
        if let Some(proposal) = proposal {
            let proposal = json!({"role": "assistant", "content": proposal});
            request["messages"]
                .as_array_mut()
                .unwrap()
                .insert(0, proposal);
        }
        let message = served(&proxy, &request).await;
        assert_eq!(
            message["tool_calls"][0]["id"], "call_1",
            "{user}: {message}"
        );
        assert_eq!(main.chat_requests().len(), 1, "{user}: no repair turn");
        assert!(proxy
            .metrics()
            .contains("plaincall_grounding_nothing_said_total 0"));
    }
}

fn tool_of(name: &str, properties: Value, required: &[&str]) -> Value {
    json!({"type": "function", "function": {"name": name, "description": "A tool.",
        "parameters": {"type": "object", "properties": properties, "required": required}}})
}

#[tokio::test]
async fn a_call_of_a_number_or_day_nobody_gave_asks_the_main_model_to_ask_once() {
    let timer = tool_of(
        "set_timer",
        json!({"minutes": {"type": "integer"}, "label": {"type": "string"}}),
        &["minutes"],
    );
    let made_up = json!({"minutes": 10});
    let question = "For how long should the timer run?";
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![tool_call("call_1", "set_timer", &made_up)]),
            "tool_calls",
        )),
        Reply::ok(completion(text_message(question), "stop")),
    ])
    .await;
    let proxy = Proxy::start(&main.url(), "").await;
    let request = json!({"model": "m", "tools": [timer.clone()],
        "messages": [{"role": "user", "content": "set a timer please"}]});
    let message = served(&proxy, &request).await;
    assert_eq!(message["content"], question, "{message}");
    let requests = main.chat_requests();
    assert_eq!(requests.len(), 2, "one repair turn");
    let told = last_message(&requests[1].json());
    assert!(
        told.starts_with(
            "[NOT SAID] The user did not give minutes: ask the user for it rather than guess"
        ),
        "{told}"
    );
    assert!(proxy
        .metrics()
        .contains("plaincall_grounding_nothing_said_total 1"));

    // Told once, a main model that calls again gets its call as written.
    let again = || {
        Reply::ok(completion(
            calls_message(vec![tool_call("call_2", "set_timer", &made_up)]),
            "tool_calls",
        ))
    };
    let main = MockServer::scripted(vec![again(), again()]).await;
    let proxy = Proxy::start(&main.url(), "").await;
    let message = served(&proxy, &request).await;
    assert_eq!(first_call_arguments(&message), made_up);
    assert_eq!(main.chat_requests().len(), 2);
}

#[tokio::test]
async fn a_call_of_the_schema_s_own_example_asks_the_main_model_to_ask_once() {
    // BFCL's live_irrelevance_25-2-13: "What's 1+1?" and a weather call for the city the
    // schema gives as its example.
    let weather = json!({"type": "function", "function": {"name": "get_current_weather",
        "description": "Retrieves the current weather conditions for a specified city and state.",
        "parameters": {"type": "object", "required": ["location"], "properties": {
            "location": {"type": "string", "description": "The location, in the format of 'City, State', such as 'San Francisco, CA'."},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "fahrenheit"}}}}});
    let copied = json!({"location": "San Francisco, CA"});
    let answer = "1 + 1 is 2.";
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![tool_call("call_1", "get_current_weather", &copied)]),
            "tool_calls",
        )),
        Reply::ok(completion(text_message(answer), "stop")),
    ])
    .await;
    let proxy = Proxy::start(&main.url(), "").await;
    let request = json!({"model": "m", "tools": [weather.clone()],
        "messages": [{"role": "user", "content": "What's 1+1?"}]});
    let message = served(&proxy, &request).await;
    assert_eq!(message["content"], answer, "{message}");
    let requests = main.chat_requests();
    assert_eq!(requests.len(), 2, "one repair turn");
    let told = last_message(&requests[1].json());
    assert!(
        told.starts_with("[NOT SAID] The user did not give location"),
        "{told}"
    );

    // Said by the user, a value of the model's own that is no example of the schema's, or a
    // command worked out from the request that the schema happens to give, it goes out.
    let shell = json!({"type": "function", "function": {"name": "run_command",
        "description": "Runs a shell command, e.g. 'ls -la'.",
        "parameters": {"type": "object", "required": ["command"],
            "properties": {"command": {"type": "string"}}}}});
    for (user, tool, args) in [
        ("weather in San Francisco, CA?", &weather, copied.clone()),
        (
            "is it raining?",
            &weather,
            json!({"location": "London, UK"}),
        ),
        // Said by its initials.
        (
            "attractions to visit in the SF area?",
            &weather,
            copied.clone(),
        ),
        (
            "what's in this folder?",
            &shell,
            json!({"command": "ls -la"}),
        ),
    ] {
        let name = tool["function"]["name"].as_str().unwrap();
        let main = MockServer::scripted(vec![Reply::ok(completion(
            calls_message(vec![tool_call("call_1", name, &args)]),
            "tool_calls",
        ))])
        .await;
        let proxy = Proxy::start(&main.url(), "").await;
        let request = json!({"model": "m", "tools": [tool.clone()],
            "messages": [{"role": "user", "content": user}]});
        let message = served(&proxy, &request).await;
        assert_eq!(first_call_arguments(&message), args, "{user}");
        assert_eq!(main.chat_requests().len(), 1, "{user}: no repair turn");
    }
}

#[tokio::test]
async fn a_call_of_worked_out_text_or_a_fact_said_goes_out() {
    // A path, a command, a name: a model works them out from the request, and grounding
    // traces no such work. A number said, or a day said in words, is the user's.
    let read = tool_of("read_file", json!({"path": {"type": "string"}}), &["path"]);
    let shell = tool_of(
        "shell",
        json!({"command": {"type": "array", "items": {"type": "string"}}, "timeout_ms": {"type": "integer"}}),
        &["command"],
    );
    let weather = tool_of(
        "get_weather",
        json!({"city": {"type": "string"}}),
        &["city"],
    );
    let timer = tool_of(
        "set_timer",
        json!({"minutes": {"type": "integer"}}),
        &["minutes"],
    );
    let alarm = tool_of(
        "set_alarm",
        json!({"date": {"type": "string"}, "time": {"type": "string"}}),
        &["date", "time"],
    );
    let cases = [
        (
            "look at the main file",
            read,
            json!({"path": "src/main.rs"}),
        ),
        (
            "what's in this folder?",
            shell,
            json!({"command": ["bash", "-lc", "ls -la"]}),
        ),
        ("is it raining?", weather, json!({"city": "London"})),
        ("a timer for ten minutes", timer, json!({"minutes": 10})),
        (
            "wake me tomorrow at seven",
            alarm,
            json!({"date": "2026-12-01", "time": "07:00"}),
        ),
    ];
    for (user, tool, args) in cases {
        let name = tool["function"]["name"].as_str().unwrap().to_owned();
        let main = MockServer::scripted(vec![Reply::ok(completion(
            calls_message(vec![tool_call("call_1", &name, &args)]),
            "tool_calls",
        ))])
        .await;
        let proxy = Proxy::start(&main.url(), "").await;
        let request = json!({"model": "m", "tools": [tool],
            "messages": [{"role": "user", "content": user}]});
        let message = served(&proxy, &request).await;
        assert_eq!(
            message["tool_calls"][0]["id"], "call_1",
            "{user}: {message}"
        );
        assert_eq!(main.chat_requests().len(), 1, "{user}: no repair turn");
    }
}

#[tokio::test]
async fn with_no_repair_turn_left_the_model_s_own_call_goes_as_written() {
    // An objection needs a repair turn to be heard: none left (none configured, or several
    // choices asked for), the call is the answer, not a note that loses it.
    for (config, n) in [("[translation]\nrepair_turns = 0\n", 1), ("", 2)] {
        let main = MockServer::scripted(vec![own_car_call("call_1", false)]).await;
        let proxy = Proxy::start(&main.url(), config).await;
        let mut request = asking_for_cars("I'd like to look for a rental vehicle.", false);
        if n > 1 {
            request["n"] = json!(n);
        }
        let message = served(&proxy, &request).await;
        assert_eq!(
            message["tool_calls"][0]["id"], "call_1",
            "{config} n={n}: {message}"
        );
        assert_eq!(first_call_arguments(&message), made_up_cars());
        assert_eq!(main.chat_requests().len(), 1, "{config} n={n}");
    }
}

fn bus_ticket() -> Value {
    json!({"type": "function", "function": {
        "name": "Buses_3_BuyBusTicket",
        "description": "Purchase bus tickets for a specified route, date, and time.",
        "parameters": {"type": "object", "properties": {
            "from_city": {"type": "string"}, "to_city": {"type": "string"},
            "departure_date": {"type": "string", "description": "YYYY-MM-DD"},
            "departure_time": {"type": "string", "description": "HH:MM"},
            "num_passengers": {"type": "integer"}, "additional_luggage": {"type": "boolean"}},
            "required": ["from_city", "to_city", "departure_date", "departure_time"]}}})
}

fn find_events() -> Value {
    json!({"type": "function", "function": {
        "name": "Events_3_FindEvents",
        "description": "Find cultural events in a city.",
        "parameters": {"type": "object", "properties": {
            "event_type": {"type": "string", "enum": ["Music", "Theater"]},
            "city": {"type": "string"}, "date": {"type": "string"}},
            "required": ["event_type", "city"]}}})
}

/// A proxy in front of `main` whose translator answers a bus ticket with a departure time
/// nobody said, the bus tool always rewritten; and the translator.
async fn bus_translation(main: &MockServer) -> (MockServer, Proxy) {
    let bus = json!({"from_city": "Seattle, WA", "to_city": "Portland, OR",
        "departure_date": "2023-03-12", "departure_time": "10:00"})
    .to_string();
    let translator = MockServer::start(move |_| translator_reply(&bus)).await;
    let toml = format!(
        "{}[translation.tools]\nBuses_3_BuyBusTicket = \"nl\"\n",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &toml).await;
    (translator, proxy)
}

/// The user asks for a music event; the main model describes a bus ticket, whose translation
/// lacks the departure time. `direct` is the main model's answer when asked with every tool
/// in full; `tools` what the request offers. Returns the client's message and the main
/// model's requests.
async fn question_about_a_bus(direct: Value, tools: Vec<Value>) -> (Value, Vec<Value>) {
    let user = "Can you find a music event in Seattle, WA on 2023-03-12? One ticket please.";
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call("call_1", "Buses_3_BuyBusTicket", user)]),
            "tool_calls",
        )),
        Reply::ok(completion(direct, "tool_calls")),
        Reply::ok(completion(
            text_message("What time do you want to leave?"),
            "stop",
        )),
    ])
    .await;
    let (_translator, proxy) = bus_translation(&main).await;
    let request = json!({"model": "main-model",
        "messages": [{"role": "user", "content": user}], "tools": tools});
    let (status, body) = chat(&proxy, &request).await;
    assert_eq!(status, 200, "{body}");
    let requests = main.chat_requests().iter().map(|r| r.json()).collect();
    (body["choices"][0]["message"].clone(), requests)
}

#[tokio::test]
async fn a_question_about_a_tool_the_main_model_would_not_call_in_full_gives_way_to_its_call() {
    let events = json!({"event_type": "Music", "city": "Seattle, WA", "date": "2023-03-12"});
    let (message, requests) = question_about_a_bus(
        calls_message(vec![tool_call("call_d", "Events_3_FindEvents", &events)]),
        vec![bus_ticket(), find_events()],
    )
    .await;
    let call = &message["tool_calls"][0];
    assert_eq!(call["function"]["name"], "Events_3_FindEvents", "{message}");
    let args: Value = serde_json::from_str(call["function"]["arguments"].as_str().unwrap_or("{}"))
        .unwrap_or_default();
    assert_eq!(args, events);
    // The direct ask showed the bus tool in full.
    assert_eq!(requests.len(), 2);
    let shown = &requests[1]["tools"][0]["function"]["parameters"];
    assert!(
        shown["properties"].get("departure_time").is_some(),
        "{shown}"
    );
}

#[tokio::test]
async fn the_question_stands_where_the_main_model_calls_the_same_tool_or_has_no_other() {
    // Asked in full, it calls the bus tool again, with the time made up: the question goes.
    let again = json!({"from_city": "Seattle, WA", "to_city": "Portland, OR",
        "departure_date": "2023-03-12", "departure_time": "08:00"});
    let (message, requests) = question_about_a_bus(
        calls_message(vec![tool_call("call_d", "Buses_3_BuyBusTicket", &again)]),
        vec![bus_ticket(), find_events()],
    )
    .await;
    assert!(message.get("tool_calls").is_none(), "{message}");
    assert_eq!(
        requests.len(),
        3,
        "the first turn, the direct ask, the repair turn"
    );
    assert!(last_message(&requests[2]).contains("does not say departure_time"));
    // The bus tool alone: no other tool to choose, no direct ask before the question.
    let (message, requests) = question_about_a_bus(
        text_message("What time do you want to leave?"),
        vec![bus_ticket()],
    )
    .await;
    assert!(message.get("tool_calls").is_none(), "{message}");
    assert_eq!(requests.len(), 2, "the first turn and the repair turn");
    assert!(last_message(&requests[1]).contains("does not say departure_time"));
}

#[tokio::test]
async fn a_direct_answer_that_repeats_another_call_of_the_turn_does_not_send_it_twice() {
    // The turn: the weather (a tool plaincall does not handle) and a bus ticket described in
    // words; asked directly, the main model answers with the weather call alone.
    let user = "What's the weather in Seattle, and a music event there on 2023-03-12?";
    let weather = json!({"city": "Seattle"});
    let weather_tool = json!({"type": "function", "function": {"name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}});
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![
                tool_call("call_w", "get_weather", &weather),
                nl_call("call_1", "Buses_3_BuyBusTicket", user),
            ]),
            "tool_calls",
        )),
        Reply::ok(completion(
            calls_message(vec![tool_call("call_d", "get_weather", &weather)]),
            "tool_calls",
        )),
    ])
    .await;
    let (_translator, proxy) = bus_translation(&main).await;
    let request = json!({"model": "main-model",
        "messages": [{"role": "user", "content": user}],
        "tools": [weather_tool, bus_ticket(), find_events()]});
    let (status, body) = chat(&proxy, &request).await;
    assert_eq!(status, 200, "{body}");
    let calls = body["choices"][0]["message"]["tool_calls"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let names: Vec<&str> = calls
        .iter()
        .filter_map(|c| c["function"]["name"].as_str())
        .collect();
    assert_eq!(names, ["get_weather"], "{body}");
}

#[tokio::test]
async fn past_the_budget_a_question_waits_for_the_direct_ask_in_flight() {
    // The translator asks after the budget ran out, while the direct ask is still out: that
    // answer, a call to another tool, goes instead of the question.
    let user = "Can you find a music event in Seattle, WA on 2023-03-12?";
    let events = json!({"event_type": "Music", "city": "Seattle, WA", "date": "2023-03-12"});
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call("call_1", "Buses_3_BuyBusTicket", user)]),
            "tool_calls",
        )),
        Reply::Delayed(
            std::time::Duration::from_millis(900),
            Box::new(Reply::ok(completion(
                calls_message(vec![tool_call("call_d", "Events_3_FindEvents", &events)]),
                "tool_calls",
            ))),
        ),
    ])
    .await;
    let question = r#"{"error": "missing_info", "clarification_needed": "When do you leave?"}"#;
    let translator = MockServer::scripted(vec![Reply::Delayed(
        std::time::Duration::from_millis(300),
        Box::new(translator_reply(question)),
    )])
    .await;
    let toml = format!(
        "[translation]\nbudget = \"100ms\"\n{}[translation.tools]\nBuses_3_BuyBusTicket = \"nl\"\n",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &toml).await;
    let request = json!({"model": "main-model",
        "messages": [{"role": "user", "content": user}],
        "tools": [bus_ticket(), find_events()]});
    let (status, body) = chat(&proxy, &request).await;
    assert_eq!(status, 200, "{body}");
    let call = &body["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "Events_3_FindEvents", "{body}");
    assert_eq!(
        main.chat_requests().len(),
        2,
        "the first turn and the direct ask"
    );
}

/// An events tool the main model sees in full, named by its description's words only.
fn event_search() -> Value {
    json!({"type": "function", "function": {
        "name": "Events_3_FindEvents",
        "description": "Finds cultural events, such as concerts and plays, in a specified city.",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string"}, "event_type": {"type": "string"}},
            "required": ["city"]}}})
}

const QUESTION: &str =
    r#"{"error": "missing_info", "clarification_needed": "Which airport are you flying from?"}"#;

#[tokio::test]
async fn a_question_about_a_tool_whose_subject_nobody_named_goes_back_to_the_main_model() {
    // Another tool named by its name ("hotel rooms"), then by its description ("concert").
    for (user, other, tools) in [
        (
            "My friends and I would like help finding three hotel rooms in Philadelphia please.",
            "Hotels_4_SearchHotel",
            vec![flight_search(), hotel_search()],
        ),
        (
            "Find me a rock concert in Seattle on March 5th.",
            "Events_3_FindEvents",
            vec![flight_search(), event_search()],
        ),
    ] {
        let (delivered, told, metrics) = flight_call_offering(user, QUESTION, tools).await;
        assert!(!delivered);
        let told = told.expect("a repair turn");
        assert!(
            told.starts_with("[WRONG TOOL] This request is not for Flights_4_SearchRoundtripFlights: it would ask \"Which airport are you flying from?\", but the conversation names what ")
                && told.contains(other),
            "{user}: {told}"
        );
        assert!(
            metrics.contains("plaincall_questions_for_another_tool_total 1"),
            "{metrics}"
        );
    }
}

#[tokio::test]
async fn a_question_about_the_tool_the_request_names_stands() {
    // The request names flights; or no other tool is offered: the question is the user's.
    for (user, tools) in [
        (
            "Find me flights to Seattle on March 5th.",
            vec![flight_search(), event_search()],
        ),
        (
            "Find me a rock concert in Seattle on March 5th.",
            vec![flight_search()],
        ),
    ] {
        let (delivered, told, metrics) = flight_call_offering(user, QUESTION, tools).await;
        assert!(!delivered);
        assert!(
            told.as_deref()
                .is_none_or(|t| !t.starts_with("[WRONG TOOL]")),
            "{user}: {told:?}"
        );
        assert!(
            metrics.contains("plaincall_questions_for_another_tool_total 0"),
            "{metrics}"
        );
    }
}

#[tokio::test]
async fn plaincall_s_own_question_about_a_tool_the_request_is_not_for_goes_back_too() {
    // The call is tied to the request by a place it says ("Seattle"), so it is no call for
    // another request; its date nobody said, so plaincall would ask for it. The request
    // names a concert, which only the events tool's description speaks of.
    let (delivered, told, metrics) = flight_call_offering(
        "Find me a rock concert in Seattle.",
        r#"{"origin_airport": "Seattle", "destination_airport": "JFK", "departure_date": "2026-12-01"}"#,
        vec![flight_search(), event_search()],
    )
    .await;
    assert!(!delivered);
    let told = told.expect("a repair turn");
    assert!(
        told.starts_with("[WRONG TOOL] This request is not for Flights_4_SearchRoundtripFlights: it would ask \"The request does not say")
            && told.contains("Events_3_FindEvents"),
        "{told}"
    );
    assert!(
        metrics.contains("plaincall_questions_for_another_tool_total 1"),
        "{metrics}"
    );
}
