//! The crate's layers, read from its `use crate::...` paths: from the bottom, the types and
//! settings everything shares, the clients plaincall calls, the pipe, the wire formats, the
//! serving layer, the command-line tools. A module may use its own layer or those below,
//! never one above, and no modules may use each other in a circle. A new module must be
//! given a layer here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const LAYERS: &[(&str, &[&str])] = &[
    (
        "base",
        &[
            "budget",
            "config",
            "config_error",
            "drain",
            "error",
            "json",
            "memory",
            "metrics",
            "openai",
            "owner",
            "prompts",
            "redact",
            "shared",
            "sse",
            "telemetry",
            "text",
        ],
    ),
    ("clients", &["upstream"]),
    ("pipe", &["pipe"]),
    ("wire formats", &["wire"]),
    ("serving", &["auth", "routes", "server", "startup", "state"]),
    ("tools", &["cli", "eval", "explain"]),
];

/// Top-level module → the top-level modules its code names as `crate::<module>`.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files = vec![src.clone()];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path.strip_prefix(&src).unwrap();
        let first = relative.components().next().unwrap();
        let module = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned();
        if module == "lib" || module == "main" {
            continue;
        }
        let uses = graph.entry(module.clone()).or_default();
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let code = line.split("//").next().unwrap_or_default();
            for (at, _) in code.match_indices("crate::") {
                let name: String = code[at + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if name != module {
                    uses.insert(name);
                }
            }
        }
    }
    // Names of functions and re-exports at the crate root are not modules.
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for uses in graph.values_mut() {
        uses.retain(|name| modules.contains(name));
    }
    graph
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

#[test]
fn every_module_has_a_layer_and_no_import_goes_up() {
    let graph = graph();
    assert!(graph.len() > 20, "{graph:?}");
    let mut wrong = Vec::new();
    for (module, uses) in &graph {
        let Some(own) = layer_of(module) else {
            wrong.push(format!("`{module}` has no layer in tests/proxy/layers.rs"));
            continue;
        };
        for used in uses {
            if layer_of(used).is_some_and(|layer| layer > own) {
                wrong.push(format!(
                    "`{module}` ({}) uses `{used}` ({}), a layer above it",
                    LAYERS[own].0,
                    LAYERS[layer_of(used).unwrap_or(own)].0
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_modules_use_each_other_in_a_circle() {
    let graph = graph();
    // Depth-first search; a module met again on the current path closes a circle.
    fn visit(
        module: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|m| m == module) {
            let mut circle = path[at..].to_vec();
            circle.push(module.to_owned());
            return Some(circle);
        }
        if done.contains(module) {
            return None;
        }
        path.push(module.to_owned());
        for used in graph.get(module).into_iter().flatten() {
            if let Some(circle) = visit(used, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(module.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        let circle = visit(module, &graph, &mut Vec::new(), &mut done);
        assert!(
            circle.is_none(),
            "a circle: {}",
            circle.unwrap_or_default().join(" -> ")
        );
    }
}

/// Every `.rs` file under `dir` (relative to the crate), with its text.
fn sources(dir: &str) -> Vec<(std::path::PathBuf, String)> {
    let mut files = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)];
    let mut found = Vec::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            found.push((path, text));
        }
    }
    found
}

/// The pipe and the wire formats are driven by the serving layer and never reach into it:
/// no file of `src/pipe` or `src/wire` names axum (responses, bodies and extractors are built
/// above them).
#[test]
fn the_engine_and_the_wire_formats_do_not_use_the_web_framework() {
    let mut wrong = Vec::new();
    for (path, text) in sources("src/pipe").into_iter().chain(sources("src/wire")) {
        let uses = text
            .lines()
            .filter(|line| line.split("//").next().unwrap_or_default().contains("axum"))
            .count();
        if uses > 0 {
            wrong.push(format!("{} ({uses} lines)", path.display()));
        }
    }
    assert!(
        wrong.is_empty(),
        "axum below the serving layer: {}",
        wrong.join(", ")
    );
}

/// The code outside the file's test module (a top-level `#[cfg(test)]` before `mod`).
fn code_lines(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .windows(2)
        .position(|pair| pair[0] == "#[cfg(test)]" && pair[1].starts_with("mod "))
        .unwrap_or(lines.len());
    lines[..end].to_vec()
}

/// A function reads in one screen: none over 80 lines, from its `fn` line to its closing
/// brace, outside tests.
#[test]
fn no_function_is_over_80_lines() {
    let mut wrong = Vec::new();
    for (path, text) in sources("src") {
        let lines = code_lines(&text);
        for (at, line) in lines.iter().enumerate() {
            let code = line.trim_start();
            let indent = &line[..line.len() - code.len()];
            let Some(name) = [
                "pub fn ",
                "pub(crate) fn ",
                "pub(super) fn ",
                "fn ",
                "async fn ",
            ]
            .iter()
            .chain(&[
                "pub async fn ",
                "pub(crate) async fn ",
                "pub(super) async fn ",
            ])
            .find_map(|prefix| code.strip_prefix(prefix)) else {
                continue;
            };
            let end = lines[at + 1..]
                .iter()
                .position(|l| *l == format!("{indent}}}"));
            if let Some(end) = end.filter(|&end| end + 2 > 80) {
                let name: String = name
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                wrong.push(format!("{}: `{name}` is {} lines", path.display(), end + 2));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// An item declared `pub`, `pub(crate)` or `pub(super)` is one another file names: the rest are
/// private to their file. Such a type may also be named only by its own file's visible items (a
/// field's or a function's type), which the crate's API (`lib.rs`) reaches; `cli` and `sse`
/// are the crate's public modules, whose items the binary and others may take.
#[test]
fn every_pub_item_is_used_outside_its_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let everything: Vec<(std::path::PathBuf, String)> = ["src", "tests", "examples", "fuzz"]
        .iter()
        .filter(|dir| root.join(dir).is_dir())
        .flat_map(|dir| sources(dir))
        .collect();
    let named = |word: &str, text: &str| {
        text.match_indices(word).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            !part(before) && !part(after)
        })
    };
    let mut wrong = Vec::new();
    for (path, text) in &everything {
        let relative = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if !relative.starts_with("src/")
            || ["src/cli.rs", "src/sse.rs", "src/lib.rs", "src/main.rs"]
                .contains(&relative.as_str())
        {
            continue;
        }
        let lines = code_lines(text);
        // The file's public surface: its `pub` lines, and `pub fn` signatures to their `{`.
        let mut surface = String::new();
        let mut in_signature = false;
        for line in &lines {
            let code = line.trim_start();
            let public = visible(code);
            if public.is_some_and(|rest| rest.starts_with("fn ") || rest.starts_with("async fn ")) {
                in_signature = true;
            }
            // A trait impl's associated type is as visible as the trait.
            if in_signature || public.is_some() || code.starts_with("type ") {
                surface.push_str(line);
                surface.push('\n');
            }
            if code.ends_with('{') || code.ends_with(';') {
                in_signature = false;
            }
        }
        for line in &lines {
            let code = line.trim_start();
            let Some(rest) = visible(code) else {
                continue;
            };
            let rest = rest.strip_prefix("async ").unwrap_or(rest);
            let Some(rest) = [
                "fn ", "struct ", "enum ", "const ", "trait ", "type ", "static ",
            ]
            .iter()
            .find_map(|kind| rest.strip_prefix(kind)) else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let elsewhere = everything
                .iter()
                .any(|(other, other_text)| other != path && named(&name, other_text));
            let in_surface = surface.lines().filter(|l| named(&name, l)).count() > 1;
            if !elsewhere && !in_surface {
                wrong.push(format!(
                    "{relative}: `{name}` is visible outside its file but used only there"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// What follows a visibility that reaches past the file (`pub`, `pub(crate)`, `pub(super)`).
fn visible(code: &str) -> Option<&str> {
    ["pub ", "pub(crate) ", "pub(super) "]
        .iter()
        .find_map(|prefix| code.strip_prefix(prefix))
}
