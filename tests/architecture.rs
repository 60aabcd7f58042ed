//! Keeps the shape of `src/` honest, by reading the sources:
//!
//! - no import cycle between areas: an area is a folder of `src/` (`board`,
//!   `eval`, `search`, `tools`) or a file directly in it (`uci.rs`,
//!   `perft.rs`, `bench.rs`); an edge is any `crate::<area>` path written in
//!   a file of another area (comments included), `lib.rs` and `main.rs`
//!   aside, since they only declare and dispatch;
//! - no source file over 1,200 lines of code (blank lines, comments and the
//!   `#[cfg(test)]` module aside).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_CODE_LINES: usize = 1200;

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a readable directory entry").path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The area of a file: its folder under `src/`, or its own name for a file
/// directly in `src/`; `None` for `lib.rs` and `main.rs`.
fn area_of(src: &Path, file: &Path) -> Option<String> {
    let relative = file.strip_prefix(src).expect("a file under src/");
    let mut parts = relative.components();
    let first = parts.next()?.as_os_str().to_string_lossy().into_owned();
    if parts.next().is_some() {
        return Some(first);
    }
    match first.as_str() {
        "lib.rs" | "main.rs" => None,
        name => Some(name.trim_end_matches(".rs").to_string()),
    }
}

/// The first path segment of every `crate::` path in `text`, including each
/// item of a grouped `crate::{a, b::c}`.
fn crate_paths(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level items of the group, up to its closing brace.
            let mut depth = 0;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if c.is_whitespace() => {}
                    _ if item_start && depth == 0 => {
                        found.insert(ident(&group[i..]));
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.insert(ident(rest));
        }
    }
    found.retain(|s| !s.is_empty());
    found
}

/// Area -> the other areas its files name.
fn area_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = src_dir();
    let mut files = Vec::new();
    source_files(&src, &mut files);
    let areas: BTreeSet<String> = files.iter().filter_map(|f| area_of(&src, f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let Some(area) = area_of(&src, file) else {
            continue;
        };
        let text = std::fs::read_to_string(file).expect("a readable source file");
        let targets = graph.entry(area.clone()).or_default();
        for target in crate_paths(&text) {
            if target != area && areas.contains(&target) {
                targets.insert(target);
            }
        }
    }
    graph
}

/// A cycle of the graph as a path `a -> b -> ... -> a`, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_checker_reads_paths_and_finds_cycles() {
    let paths = crate_paths(
        "use crate::board::position::Position;\n\
         use crate::{eval::{score, network}, search::tt};\n\
         let x = crate::perft::divide(); // crate::uci in a comment\n",
    );
    let expected: BTreeSet<String> = ["board", "eval", "search", "perft", "uci"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(paths, expected);

    let edges = |list: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in list {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    assert_eq!(find_cycle(&edges(&[("a", "b"), ("b", "c")])), None);
    let cycle = find_cycle(&edges(&[("a", "b"), ("b", "c"), ("c", "a")]));
    assert_eq!(cycle.map(|c| c.len()), Some(4));
}

#[test]
fn no_import_cycle_between_areas() {
    let graph = area_graph();
    for area in ["board", "eval", "search", "tools"] {
        assert!(graph.contains_key(area), "no area '{area}' under src/");
    }
    if let Some(cycle) = find_cycle(&graph) {
        let edges: Vec<String> = graph
            .iter()
            .map(|(a, to)| format!("{a} -> {to:?}"))
            .collect();
        panic!(
            "import cycle between areas: {}\nall edges:\n{}",
            cycle.join(" -> "),
            edges.join("\n")
        );
    }
    // The board is the foundation: it names no other area.
    assert!(
        graph["board"].is_empty(),
        "board imports {:?}",
        graph["board"]
    );
    // The engine never depends on the offline tools.
    for (area, targets) in &graph {
        if area != "tools" {
            assert!(!targets.contains("tools"), "{area} imports tools");
        }
    }
}

/// Lines of code: not blank, not a comment, not in the `#[cfg(test)]` module.
fn code_lines(text: &str) -> usize {
    let body = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .count()
}

#[test]
fn no_source_file_is_over_the_line_limit() {
    let src = src_dir();
    let mut files = Vec::new();
    source_files(&src, &mut files);
    let mut too_long = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a readable source file");
        let n = code_lines(&text);
        if n > MAX_CODE_LINES {
            too_long.push(format!("{} ({n} lines of code)", file.display()));
        }
    }
    assert!(
        too_long.is_empty(),
        "over {MAX_CODE_LINES} lines of code: {too_long:?}"
    );
}
