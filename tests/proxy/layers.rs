//! The crate's layers, read from its `use crate::...` paths: from the bottom, the types and
//! settings everything shares, the clients plaincall calls, the engine, the wire formats, the
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
        ],
    ),
    ("clients", &["upstream"]),
    ("engine", &["pipe"]),
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

/// The engine is driven by the serving layer and never reaches into it: no file of
/// `src/pipe` names axum (responses, bodies and extractors are built above it).
#[test]
fn the_engine_does_not_use_the_web_framework() {
    let pipe = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/pipe");
    let mut files = vec![pipe];
    let mut wrong = Vec::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let uses = text
            .lines()
            .filter(|line| line.split("//").next().unwrap_or_default().contains("axum"))
            .count();
        if uses > 0 {
            wrong.push(format!("{} ({uses} lines)", path.display()));
        }
    }
    assert!(wrong.is_empty(), "axum in the engine: {}", wrong.join(", "));
}
