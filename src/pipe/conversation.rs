//! One conversation with the main model, turn by turn, as the driver ([`super::drive`]) runs
//! it for whole and streamed answers alike: after each upstream turn it decides whether to ask
//! again (a repair turn, and with which messages) or to finish (with which finish reason,
//! summed usage and note).

use serde_json::{json, Value};

use crate::openai::{ToolCall, Usage};

/// A call whose translation failed: the main model's call, what its tool message says, and
/// the reason the client reads if no repair turn fixes it.
pub(crate) struct Failure {
    pub call: ToolCall,
    pub tool_message: String,
    pub reason: String,
}

/// What follows an upstream turn.
pub(crate) enum Next {
    /// Ask the main model again with these messages appended.
    Repair(Vec<Value>),
    /// Answer the client, with the note about calls that could not be made, if any.
    Finish(Option<String>),
}

pub(crate) struct Conversation {
    repair_turns: u32,
    turn: u32,
    usage: Option<Usage>,
    /// Past the translation budget no repair turn starts: the client gets what there is.
    deadline: Option<tokio::time::Instant>,
}

impl Conversation {
    pub(crate) fn new(repair_turns: u32) -> Conversation {
        Conversation {
            repair_turns,
            turn: 0,
            usage: None,
            deadline: None,
        }
    }

    /// The same, with no repair turn started after `deadline` (`translation.budget`).
    pub(crate) fn until(mut self, deadline: tokio::time::Instant) -> Conversation {
        self.deadline = Some(deadline);
        self
    }

    /// The upstream turn being served, counting from 0: the repair turns started so far.
    pub(crate) fn turn(&self) -> u32 {
        self.turn
    }

    /// Adds a turn's usage to the total (saturating: the counts are the upstream's).
    pub(crate) fn add_usage(&mut self, usage: Option<Usage>) {
        match (&mut self.usage, usage) {
            (Some(total), Some(more)) => total.add(&more),
            (total @ None, more) => *total = more,
            (Some(_), None) => {}
        }
    }

    /// The usage of every turn, summed.
    pub(crate) fn usage(&self) -> Option<&Usage> {
        self.usage.as_ref()
    }

    /// Whether a turn read now could be followed by a repair turn: one choice, turns left,
    /// the budget not spent.
    pub(crate) fn repair_left(&self, single: bool) -> bool {
        let in_budget = self
            .deadline
            .is_none_or(|deadline| tokio::time::Instant::now() < deadline);
        single && in_budget && self.turn < self.repair_turns
    }

    /// After a turn: a repair turn while turns are left and one is possible (one choice),
    /// else the failures become the note the client reads.
    pub(crate) fn after_turn(
        &mut self,
        content: Option<&str>,
        failed: Vec<Failure>,
        can_repair: bool,
    ) -> Next {
        let in_budget = self
            .deadline
            .is_none_or(|deadline| tokio::time::Instant::now() < deadline);
        if !failed.is_empty() && can_repair && in_budget && self.turn < self.repair_turns {
            self.turn += 1;
            let pairs: Vec<(ToolCall, String)> = failed
                .into_iter()
                .map(|f| (f.call, f.tool_message))
                .collect();
            return Next::Repair(repair_messages(content, &pairs));
        }
        let reasons: Vec<String> = failed.into_iter().map(|f| f.reason).collect();
        Next::Finish((!reasons.is_empty()).then(|| failure_text(&reasons)))
    }

    /// The finish reason the client gets: `tool_calls` when calls go out, `stop` when the
    /// answer is the note about failed calls, else the upstream's own.
    pub(crate) fn finish_reason(has_calls: bool, failed: bool, upstream: Option<&str>) -> String {
        if has_calls {
            "tool_calls".to_owned()
        } else if failed {
            "stop".to_owned()
        } else {
            upstream.unwrap_or("stop").to_owned()
        }
    }
}

/// The messages a repair turn appends: the main model's failed calls and their tool results.
fn repair_messages(content: Option<&str>, failed: &[(ToolCall, String)]) -> Vec<Value> {
    let calls: Vec<&ToolCall> = failed.iter().map(|(c, _)| c).collect();
    let mut messages = vec![json!({
        "role": "assistant",
        "content": content.filter(|c| !c.is_empty()),
        "tool_calls": calls,
    })];
    for (call, tool_message) in failed {
        messages.push(json!({"role": "tool", "tool_call_id": call.id, "content": tool_message}));
    }
    messages
}

/// What the client reads when repair turns run out.
fn failure_text(reasons: &[String]) -> String {
    let reasons: Vec<&str> = reasons.iter().map(|r| r.trim_end_matches('.')).collect();
    format!(
        "I could not complete the tool call: {}.",
        reasons.join("; ")
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn failure() -> Failure {
        Failure {
            call: ToolCall::new("c".into(), "f".into(), "{}".into()),
            tool_message: "[TRANSLATION AMBIGUITY] when?".into(),
            reason: "the f call needs more information: when?".into(),
        }
    }

    #[tokio::test]
    async fn past_the_budget_no_repair_turn_starts() {
        let spent = tokio::time::Instant::now() - std::time::Duration::from_millis(1);
        let mut conversation = Conversation::new(3).until(spent);
        match conversation.after_turn(None, vec![failure()], true) {
            Next::Finish(Some(note)) => assert!(note.contains("when?"), "{note}"),
            _ => panic!("expected the failure to go to the client"),
        }
        let later = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
        let mut conversation = Conversation::new(3).until(later);
        assert!(matches!(
            conversation.after_turn(None, vec![failure()], true),
            Next::Repair(_)
        ));
    }

    #[test]
    fn repairs_while_turns_are_left_then_finishes_with_a_note() {
        let mut conversation = Conversation::new(1);
        assert!(
            matches!(conversation.after_turn(Some("hm"), vec![failure()], true), Next::Repair(m) if m.len() == 2)
        );
        assert_eq!(conversation.turn(), 1);
        let Next::Finish(Some(note)) = conversation.after_turn(None, vec![failure()], true) else {
            panic!("no note")
        };
        assert!(note.contains("needs more information"));
        assert!(matches!(
            conversation.after_turn(None, Vec::new(), true),
            Next::Finish(None)
        ));
        assert_eq!(
            Conversation::finish_reason(false, true, Some("length")),
            "stop"
        );
        assert_eq!(
            Conversation::finish_reason(true, true, Some("stop")),
            "tool_calls"
        );
        assert_eq!(
            Conversation::finish_reason(false, false, Some("length")),
            "length"
        );
    }

    #[test]
    fn several_choices_never_repair() {
        let mut conversation = Conversation::new(3);
        assert!(matches!(
            conversation.after_turn(None, vec![failure()], false),
            Next::Finish(Some(_))
        ));
        assert_eq!(conversation.turn(), 0);
    }

    #[test]
    fn usage_sums_over_turns() {
        let mut conversation = Conversation::new(1);
        let usage = |n| Usage {
            prompt_tokens: n,
            completion_tokens: 1,
            total_tokens: n.saturating_add(1),
            extra: Default::default(),
        };
        conversation.add_usage(Some(usage(10)));
        conversation.add_usage(None);
        conversation.add_usage(Some(usage(u64::MAX)));
        assert_eq!(conversation.usage().unwrap().prompt_tokens, u64::MAX);
        assert_eq!(conversation.usage().unwrap().completion_tokens, 2);
    }
}
