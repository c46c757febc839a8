//! Prompt templates and per-tool prompt files. The files in `prompts/` are embedded at build
//! time; a configured `prompts_dir` overrides them file by file and may add per-tool files.
//!
//! Per tool: `tools/<tool>.examples.jsonl` adds few-shot examples, `tools/<tool>.translator.j2`
//! replaces the translator template, `tools/<tool>.nl.txt` replaces the generated description
//! the main model sees.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

const EMBEDDED: &[(&str, &str)] = &[
    ("translator.j2", include_str!("../prompts/translator.j2")),
    ("retry.j2", include_str!("../prompts/retry.j2")),
    (
        "prompt_tools.j2",
        include_str!("../prompts/prompt_tools.j2"),
    ),
    (
        "tools/set_reminder.examples.jsonl",
        include_str!("../prompts/tools/set_reminder.examples.jsonl"),
    ),
    (
        "tools/spawn_sub_session.examples.jsonl",
        include_str!("../prompts/tools/spawn_sub_session.examples.jsonl"),
    ),
    (
        "tools/task.examples.jsonl",
        include_str!("../prompts/tools/task.examples.jsonl"),
    ),
    (
        "tools/add_skill.examples.jsonl",
        include_str!("../prompts/tools/add_skill.examples.jsonl"),
    ),
    (
        "tools/add_recurring_task.examples.jsonl",
        include_str!("../prompts/tools/add_recurring_task.examples.jsonl"),
    ),
];

#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("prompt file `{file}`: {reason}")]
    File { file: String, reason: String },
    #[error("rendering `{template}`: {source}")]
    Render {
        template: String,
        source: minijinja::Error,
    },
}

/// One few-shot example: the description and the answer, as compact JSON.
#[derive(Debug, Clone, Serialize)]
pub struct Example {
    pub description: String,
    pub output: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExampleLine {
    description: String,
    output: Value,
}

/// What the translator template is rendered with.
#[derive(Debug, Serialize)]
pub struct TranslatorContext<'a> {
    pub tool_name: &'a str,
    pub tool_description: &'a str,
    pub schema: String,
    pub rules: Vec<String>,
    pub examples: &'a [Example],
    pub today: String,
    pub weekday: String,
    pub timezone: &'a str,
}

pub struct Prompts {
    env: minijinja::Environment<'static>,
    examples: HashMap<String, Vec<Example>>,
    nl_descriptions: HashMap<String, String>,
}

impl Prompts {
    pub fn load(dir: Option<&Path>) -> Result<Prompts, PromptError> {
        let mut files: BTreeMap<String, String> = EMBEDDED
            .iter()
            .map(|(name, text)| ((*name).to_owned(), (*text).to_owned()))
            .collect();
        if let Some(dir) = dir {
            for sub in ["", "tools"] {
                let folder = dir.join(sub);
                let Ok(entries) = std::fs::read_dir(&folder) else {
                    continue;
                };
                for entry in entries.flatten() {
                    let path = entry.path();
                    if !path.is_file() {
                        continue;
                    }
                    let name = entry.file_name().to_string_lossy().into_owned();
                    let key = if sub.is_empty() {
                        name
                    } else {
                        format!("{sub}/{name}")
                    };
                    let text = std::fs::read_to_string(&path).map_err(|e| PromptError::File {
                        file: path.display().to_string(),
                        reason: e.to_string(),
                    })?;
                    files.insert(key, text);
                }
            }
        }
        let mut env = minijinja::Environment::new();
        env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
        let mut examples = HashMap::new();
        let mut nl_descriptions = HashMap::new();
        for (name, text) in files {
            if name.ends_with(".j2") {
                env.add_template_owned(name.clone(), text)
                    .map_err(|e| PromptError::File {
                        file: name.clone(),
                        reason: e.to_string(),
                    })?;
            } else if let Some(tool) = tool_file(&name, ".examples.jsonl") {
                examples.insert(tool.to_owned(), parse_examples(&name, &text)?);
            } else if let Some(tool) = tool_file(&name, ".nl.txt") {
                nl_descriptions.insert(tool.to_owned(), text.trim().to_owned());
            }
        }
        for required in ["translator.j2", "retry.j2", "prompt_tools.j2"] {
            if env.get_template(required).is_err() {
                return Err(PromptError::File {
                    file: required.into(),
                    reason: "missing".into(),
                });
            }
        }
        Ok(Prompts {
            env,
            examples,
            nl_descriptions,
        })
    }

    pub fn examples(&self, tool: &str) -> &[Example] {
        self.examples.get(tool).map_or(&[], Vec::as_slice)
    }

    /// A hand-written description of the one-field tool, when `tools/<tool>.nl.txt` exists.
    pub fn nl_description(&self, tool: &str) -> Option<&str> {
        self.nl_descriptions.get(tool).map(String::as_str)
    }

    pub fn translator_system(
        &self,
        context: &TranslatorContext<'_>,
    ) -> Result<String, PromptError> {
        let own = format!("tools/{}.translator.j2", context.tool_name);
        let name = if self.env.get_template(&own).is_ok() {
            own
        } else {
            "translator.j2".to_owned()
        };
        self.render(&name, context)
    }

    pub fn retry(&self, errors: &[String], previous: &str) -> Result<String, PromptError> {
        #[derive(Serialize)]
        struct Retry<'a> {
            errors: &'a [String],
            previous: &'a str,
        }
        self.render("retry.j2", &Retry { errors, previous })
    }

    pub fn render<S: Serialize>(&self, template: &str, context: &S) -> Result<String, PromptError> {
        let render = |e| PromptError::Render {
            template: template.to_owned(),
            source: e,
        };
        self.env
            .get_template(template)
            .map_err(render)?
            .render(context)
            .map_err(render)
    }
}

fn tool_file<'a>(name: &'a str, suffix: &str) -> Option<&'a str> {
    name.strip_prefix("tools/")?.strip_suffix(suffix)
}

fn parse_examples(file: &str, text: &str) -> Result<Vec<Example>, PromptError> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            let parsed: ExampleLine =
                serde_json::from_str(line).map_err(|e| PromptError::File {
                    file: file.to_owned(),
                    reason: format!("line {}: {e}", i + 1),
                })?;
            Ok(Example {
                description: parsed.description,
                output: parsed.output.to_string(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_prompts_load_and_render() -> Result<(), PromptError> {
        let prompts = Prompts::load(None)?;
        assert!(prompts.examples("set_reminder").len() >= 4);
        let text = prompts.translator_system(&TranslatorContext {
            tool_name: "set_reminder",
            tool_description: "Schedule a reminder.",
            schema: "{}".into(),
            rules: vec!["Always required: message.".into()],
            examples: prompts.examples("set_reminder"),
            today: "2026-11-22".into(),
            weekday: "Sunday".into(),
            timezone: "UTC",
        })?;
        assert!(text.contains("set_reminder"));
        assert!(text.contains("2026-11-22"));
        assert!(text.contains("Always required: message."));
        let retry = prompts.retry(&["at /at: required".into()], "{}")?;
        assert!(retry.contains("at /at: required"));
        Ok(())
    }

    #[test]
    fn a_directory_overrides_and_adds_files() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir(dir.path().join("tools"))?;
        std::fs::write(dir.path().join("tools/my_tool.nl.txt"), "Say what to do.\n")?;
        std::fs::write(
            dir.path().join("tools/my_tool.translator.j2"),
            "custom for {{ tool_name }}",
        )?;
        std::fs::write(
            dir.path().join("tools/my_tool.examples.jsonl"),
            "{\"description\": \"d\", \"output\": {\"a\": 1}}\n",
        )?;
        let prompts = Prompts::load(Some(dir.path()))?;
        assert_eq!(prompts.nl_description("my_tool"), Some("Say what to do."));
        assert_eq!(prompts.examples("my_tool")[0].output, "{\"a\":1}");
        let text = prompts.translator_system(&TranslatorContext {
            tool_name: "my_tool",
            tool_description: "",
            schema: String::new(),
            rules: vec![],
            examples: &[],
            today: String::new(),
            weekday: String::new(),
            timezone: "UTC",
        })?;
        assert_eq!(text, "custom for my_tool");
        Ok(())
    }

    #[test]
    fn a_broken_examples_file_is_refused_with_its_name() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir(dir.path().join("tools"))?;
        std::fs::write(dir.path().join("tools/x.examples.jsonl"), "{oops\n")?;
        let error = Prompts::load(Some(dir.path())).err().map(|e| e.to_string());
        assert!(error.is_some_and(|e| e.contains("tools/x.examples.jsonl") && e.contains("line 1")));
        Ok(())
    }
}
