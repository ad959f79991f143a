//! The map in ARCHITECTURE.md, checked against the sources themselves so it cannot drift
//! from the code the way the hand-kept "may call" column and thread list did: who may
//! import whom, and which threads there are.
//!
//! Each crate's modules are read from `src/` (one module per file, a folder's `mod.rs`
//! being the folder), and every path a module names (`use` lines and paths in the code,
//! not comments, strings or `#[cfg(test)]` items) is resolved to the module it points
//! into. Two rules follow from that graph:
//!
//! * **No cycles.** Within every folder, the modules beside each other import one
//!   another in one direction only (a folder's `mod.rs` and its own modules are parent
//!   and children, and may use each other). So each module can be read after the ones
//!   it imports.
//! * **Floors in core.** Each of core's top-level modules sits on a floor
//!   ([`CORE_FLOORS`]) and imports only from floors below its own: storage (`db`) is the
//!   floor above the plain helpers, and nothing it imports knows about voice,
//!   search, the model or encryption.
//!
//! And the threads: every thread the app and core start is named (`mindsage-…`), and
//! the names ARCHITECTURE.md's "Threads and data flow" gives are exactly those.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Core's top-level modules by floor, lowest first. A module imports only from floors
/// below its own.
const CORE_FLOORS: &[&[&str]] = &[
    // Plain helpers: no module of ours below them.
    &["clock", "compare", "files", "paths", "scripts", "timing", "media"],
    // Above them: what the system is given, as text. Starting with the system's (the Run
    // key, the autostart file), quoted as Windows and the desktops split a command line;
    // the `mindsage:` links, whose jump-list tasks are quoted the same way; the
    // reminder's (task, timer, a toast opening a link), reading times as the clock does.
    // The settings file holds the reminder's and autostart's.
    &["autostart"],
    &["links"],
    &["reminder"],
    // Storage: the journal's SQLite file and its tables.
    &["db"],
    // Beside storage: files sealed with the journal's key, the credential store, the
    // settings file.
    &["sealed", "keystore", "settings"],
    // What works on the journal: drafts, voice, search, export.
    &["drafts", "voice", "search", "export"],
    // What works with all of them: the model, imports, changes of encryption, the demo.
    &["ai", "import", "encryption", "demo"],
];

/// A module: its path in the crate (`["db", "cipher"]`; a folder's `mod.rs` is the
/// folder, `lib.rs` and `main.rs` the crate) and its file.
struct Module {
    path: Vec<String>,
    file: PathBuf,
}

/// Every module of the crate whose sources are in `src`.
fn modules(src: &Path) -> Vec<Module> {
    let mut found = Vec::new();
    let mut folders = vec![src.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let file = entry.path();
            if file.is_dir() {
                folders.push(file);
                continue;
            }
            if file.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = file.strip_prefix(src).unwrap().with_extension("");
            let mut path: Vec<String> = relative
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if matches!(path.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                path.pop();
            }
            found.push(Module { path, file });
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

/// The source's tokens that matter for paths: identifiers, `::` and the punctuation
/// of `use` trees; comments, strings and characters are gone.
fn tokens(source: &str) -> Vec<String> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if let Some(start) = raw_string_at(&chars, i) {
            i = start;
            let mut hashes = 0;
            while chars[i] == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1;
            loop {
                if chars[i] == '"' && (0..hashes).all(|h| chars.get(i + 1 + h) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
        } else if c == 'b' && next == Some('"') {
            i += 1;
        } else if c == '"' {
            i += 1;
            while chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == '\'' {
            // A character ('x', '\n', '\'') or a lifetime ('a), which is left as nothing.
            if next == Some('\\') {
                i += 2;
                while chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && next == Some(':') {
            out.push("::".into());
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// Where the hashes of a raw string starting at `i` begin (`r"`, `r#"`, `br##"`), if
/// one starts there: not an identifier that begins with `r` or `br`.
fn raw_string_at(chars: &[char], i: usize) -> Option<usize> {
    let after_prefix = match (chars.get(i), chars.get(i + 1)) {
        (Some('r'), _) => i + 1,
        (Some('b'), Some('r')) => i + 2,
        _ => return None,
    };
    let mut j = after_prefix;
    while chars.get(j) == Some(&'#') {
        j += 1;
    }
    let word_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    (chars.get(j) == Some(&'"') && !word_before).then_some(after_prefix)
}

/// `tokens` without the items under `#[cfg(test)]` (a test module, a test-only `use`).
fn without_tests(tokens: Vec<String>) -> Vec<String> {
    const TEST_ATTRIBUTE: [&str; 7] = ["#", "[", "cfg", "(", "test", ")", "]"];
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i..].starts_with(&TEST_ATTRIBUTE.map(String::from)) {
            i += TEST_ATTRIBUTE.len();
            // The item: up to its `;` or the end of its first block, whichever comes
            // first at its own depth.
            let mut depth = 0;
            while i < tokens.len() {
                match tokens[i].as_str() {
                    "{" => depth += 1,
                    "}" => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    ";" if depth == 0 => {
                        i += 1;
                        break;
                    }
                    _ => {}
                }
                i += 1;
            }
        } else {
            out.push(tokens[i].clone());
            i += 1;
        }
    }
    out
}

/// The paths a `use` tree starting at `tokens[i]` names, flattened
/// (`a::{b, c::d}` → `a::b`, `a::c::d`), and the index after it.
fn use_tree(tokens: &[String], mut i: usize, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix.to_vec();
    loop {
        match tokens.get(i).map(String::as_str) {
            Some("{") => {
                i += 1;
                loop {
                    match tokens.get(i).map(String::as_str) {
                        Some("}") => return i + 1,
                        Some(",") => i += 1,
                        Some(_) => i = use_tree(tokens, i, &path, out),
                        None => return i,
                    }
                }
            }
            Some("::") => i += 1,
            Some("as") => {
                i += 2;
                out.push(path);
                return i;
            }
            Some("," | "}" | ";") | None => {
                out.push(path);
                return i;
            }
            Some("self") if !path.is_empty() => i += 1,
            Some(word) => {
                path.push(word.to_owned());
                i += 1;
            }
        }
    }
}

/// Every path of two segments or more the tokens name: those of `use` trees, and
/// `a::b::c` in the code.
fn named_paths(tokens: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] == "use" {
            let mut paths = Vec::new();
            i = use_tree(tokens, i + 1, &[], &mut paths);
            out.extend(paths);
            continue;
        }
        let starts_path = i == 0 || tokens[i - 1] != "::";
        if starts_path && tokens.get(i + 1).is_some_and(|t| t == "::") && is_word(&tokens[i]) {
            let mut path = vec![tokens[i].clone()];
            let mut j = i + 1;
            while tokens.get(j).is_some_and(|t| t == "::") && tokens.get(j + 1).is_some_and(|t| is_word(t)) {
                path.push(tokens[j + 1].clone());
                j += 2;
            }
            out.push(path);
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

fn is_word(token: &str) -> bool {
    token
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// The crate's import graph: for each module, the modules it names (other than itself),
/// each with one path that names it, to say why.
fn graph(src: &Path) -> BTreeMap<Vec<String>, BTreeMap<Vec<String>, String>> {
    let modules = modules(src);
    let known: BTreeSet<Vec<String>> = modules.iter().map(|m| m.path.clone()).collect();
    let mut graph = BTreeMap::new();
    for module in &modules {
        let tokens = without_tests(tokens(&std::fs::read_to_string(&module.file).unwrap()));
        let children: BTreeSet<&String> = tokens
            .windows(3)
            .filter(|w| w[0] == "mod" && w[2] == ";")
            .map(|w| &w[1])
            .collect();
        let mut names = BTreeMap::new();
        for path in named_paths(&tokens) {
            let absolute: Vec<String> = match path[0].as_str() {
                "crate" => path[1..].to_vec(),
                "self" | "super" => {
                    let mut base = module.path.clone();
                    let mut rest = &path[..];
                    while let Some(first) = rest.first().filter(|f| *f == "self" || *f == "super") {
                        if first == "super" {
                            base.pop();
                        }
                        rest = &rest[1..];
                    }
                    base.extend(rest.iter().cloned());
                    base
                }
                first if children.contains(&first.to_owned()) => {
                    module.path.iter().chain(&path).cloned().collect()
                }
                _ => continue,
            };
            let target = (0..=absolute.len())
                .rev()
                .map(|n| absolute[..n].to_vec())
                .find(|prefix| known.contains(prefix));
            if let Some(target) = target.filter(|t| *t != module.path) {
                names.entry(target).or_insert_with(|| path.join("::"));
            }
        }
        // A crate's `lib.rs` and `main.rs` are both its root.
        graph
            .entry(module.path.clone())
            .or_insert_with(BTreeMap::new)
            .extend(names);
    }
    graph
}

/// One import between modules beside each other: the folder, the two modules in it,
/// and the import that makes it (a module inside either).
type Edge = (Vec<String>, String, String, String);

/// The graph's imports seen from the folders: `db::cipher` importing
/// `voice::recordings` is `db` importing `voice` at the top level. A folder and its own
/// modules are parent and children, not counted.
fn edges_beside(graph: &BTreeMap<Vec<String>, BTreeMap<Vec<String>, String>>) -> Vec<Edge> {
    let mut edges = Vec::new();
    for (from, names) in graph {
        for (to, why) in names {
            let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
            if common == from.len() || common == to.len() {
                continue;
            }
            edges.push((
                from[..common].to_vec(),
                from[common].clone(),
                to[common].clone(),
                format!("{} uses {why}", from.join("::")),
            ));
        }
    }
    edges
}

/// The cycles among modules beside each other, per folder: each as the folder, its
/// modules sorted, and the imports that close it.
fn cycles(edges: &[Edge]) -> Vec<(String, Vec<String>, Vec<String>)> {
    let mut folders: BTreeMap<&Vec<String>, BTreeMap<&str, BTreeSet<&str>>> = BTreeMap::new();
    for (folder, from, to, _) in edges {
        folders
            .entry(folder)
            .or_default()
            .entry(from)
            .or_default()
            .insert(to);
    }
    let mut found = Vec::new();
    for (folder, next) in folders {
        // Two modules are in one cycle when each reaches the other.
        let reach = |start: &str| {
            let mut seen = BTreeSet::new();
            let mut todo = vec![start];
            while let Some(m) = todo.pop() {
                for &n in next.get(m).into_iter().flatten() {
                    if seen.insert(n) {
                        todo.push(n);
                    }
                }
            }
            seen
        };
        let mut placed: BTreeSet<&str> = BTreeSet::new();
        for &m in next.keys() {
            if placed.contains(m) || !reach(m).contains(m) {
                continue;
            }
            let from_m = reach(m);
            let cycle: Vec<String> = from_m
                .iter()
                .filter(|n| reach(n).contains(m))
                .map(|n| n.to_string())
                .collect();
            placed.extend(from_m.iter().filter(|n| cycle.contains(&n.to_string())));
            let why = edges
                .iter()
                .filter(|(f, a, b, _)| f == folder && cycle.contains(a) && cycle.contains(b))
                .map(|(_, a, b, why)| format!("{a} -> {b}: {why}"))
                .collect();
            found.push((folder.join("::"), cycle, why));
        }
    }
    found
}

fn crate_src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name)
        .join("src")
}

#[test]
fn no_modules_beside_each_other_import_each_other_in_a_circle() {
    let mut found = Vec::new();
    for name in ["core", "app", "bench"] {
        for (folder, cycle, why) in cycles(&edges_beside(&graph(&crate_src(name)))) {
            found.push(format!(
                "{name} {folder:?}: {cycle:?}\n    {}",
                why.join("\n    ")
            ));
        }
    }
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

#[test]
fn each_of_cores_modules_imports_only_from_the_floors_below_its_own() {
    let floor_of = |module: &str| CORE_FLOORS.iter().position(|floor| floor.contains(&module));
    let edges = edges_beside(&graph(&crate_src("core")));
    let mut wrong = Vec::new();
    for (folder, from, to, why) in &edges {
        if !folder.is_empty() {
            continue;
        }
        match (floor_of(from), floor_of(to)) {
            (Some(a), Some(b)) if b < a => {}
            (None, _) => wrong.push(format!("{from} is on no floor: add it to CORE_FLOORS")),
            (_, None) => wrong.push(format!("{to} is on no floor: add it to CORE_FLOORS")),
            _ => wrong.push(format!("{from} imports {to}, which is not below it ({why})")),
        }
    }
    wrong.dedup();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let every: BTreeSet<String> = graph(&crate_src("core"))
        .keys()
        .filter_map(|path| path.first().cloned())
        .collect();
    for module in every {
        assert!(
            floor_of(&module).is_some(),
            "{module} is on no floor: add it to CORE_FLOORS"
        );
    }
}

#[test]
fn the_reader_of_paths_sees_code_and_not_comments_strings_or_tests() {
    let source = r##"
        use crate::db::{self, cipher::{JournalKey, Passphrase as P}, entries};
        // crate::voice::recordings in a comment
        /* crate::ai::ask /* nested */ crate::ai::plan */
        fn f<'a>(x: &'a str) -> char {
            let _ = "crate::search::keyword";
            let _ = r#"crate::import::dayone"#;
            let _ = super::wav::read(x);
            '"'
        }
        #[cfg(test)]
        mod tests {
            use crate::export::json;
        }
    "##;
    let paths: Vec<String> = named_paths(&without_tests(tokens(source)))
        .into_iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(
        paths,
        [
            "crate::db",
            "crate::db::cipher::JournalKey",
            "crate::db::cipher::Passphrase",
            "crate::db::entries",
            "super::wav::read"
        ]
    );
}

/// The non-test part of a source file: what comes before its first `#[cfg(test)]`
/// (the tests module closes every file that has one).
fn without_test_module(source: &str) -> &str {
    source.split("#[cfg(test)]").next().unwrap_or(source)
}

/// The string literal right after each `marker` in `source`.
fn literals_after<'a>(source: &'a str, marker: &str) -> Vec<&'a str> {
    source
        .match_indices(marker)
        .filter_map(|(at, _)| source[at + marker.len()..].split('"').next())
        .collect()
}

/// Every thread the code starts, by name, and the unnamed ones (`std::thread::spawn`)
/// as their files.
fn threads_in_code() -> (BTreeSet<String>, Vec<String>) {
    let mut named = BTreeSet::new();
    let mut unnamed = Vec::new();
    for name in ["core", "app"] {
        for module in modules(&crate_src(name)) {
            let whole = std::fs::read_to_string(&module.file).unwrap();
            let source = without_test_module(&whole);
            for literal in [".name(\"", ".thread_name(\""]
                .iter()
                .flat_map(|marker| literals_after(source, marker))
            {
                named.insert(literal.to_owned());
            }
            // The app's threads::spawn names its threads `mindsage-<what>`.
            for what in ["threads::spawn(\"", "spawn_file_thread(\""]
                .iter()
                .flat_map(|marker| literals_after(source, marker))
            {
                named.insert(format!("mindsage-{}", what.replace(' ', "-")));
            }
            if source.contains("std::thread::spawn(") {
                unnamed.push(module.file.display().to_string());
            }
        }
    }
    (named, unnamed)
}

/// The thread names ARCHITECTURE.md's "Threads and data flow" section gives.
fn threads_on_the_map() -> BTreeSet<String> {
    let map =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../ARCHITECTURE.md")).unwrap();
    let section = map
        .split("\n## Threads and data flow")
        .nth(1)
        .expect("a Threads and data flow section")
        .split("\n## ")
        .next()
        .unwrap();
    let mut names = BTreeSet::new();
    for (at, _) in section.match_indices("mindsage-") {
        let name: String = section[at..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        names.insert(name.trim_end_matches('-').to_owned());
    }
    names
}

#[test]
fn every_thread_is_named_and_the_map_names_exactly_those() {
    let (in_code, unnamed) = threads_in_code();
    assert!(
        unnamed.is_empty(),
        "threads without a name (std::thread::spawn) in {unnamed:?}: name them, so the profiler, a crash report and the map can"
    );
    let on_map = threads_on_the_map();
    let missing: Vec<_> = in_code.difference(&on_map).collect();
    let stale: Vec<_> = on_map.difference(&in_code).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "ARCHITECTURE.md's threads are not the code's: not on the map {missing:?}, on the map but started nowhere {stale:?}"
    );
}
