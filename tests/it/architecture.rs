//! The layers of docs/architecture.md point one way: a lower layer never
//! imports a higher one, and only the loader knows YAML.
//!
//! The sources are parsed (`syn`) from `src/lib.rs` down its `mod`
//! declarations (`#[path]` included), and every `use` (grouped trees,
//! renames, `self`, `super::`, globs, `use` inside functions) and every path
//! in code (`crate::x::Y` in expressions, types, patterns, and in the
//! arguments of macros that read as expressions) is resolved to the module
//! that defines what it names, through the imports and re-exports on the
//! way. That gives the crate's module graph, which the tests below hold to
//! the picture.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::punctuated::Punctuated;
use syn::visit::Visit;

use crate::common::repo;

/// The layers of docs/architecture.md, highest first: a module may import
/// its own layer and those below it, never one above. Each name is a
/// top-level module of the crate.
const LAYERS: &[&[&str]] = &[
    &["cli"],
    &["batch"],
    &["tournament"],
    &["package"],
    &["report"],
    &["render"],
    &["outdir"],
    &["grader"],
    &["import"],
    &["load"],
    &["assignment"],
    &["generator"],
    &["play"],
    &["game"],
    &["compare", "points", "shown", "stats", "thresholds", "pool", "walk", "bundled"],
    &["engine"],
    &["tree"],
];

/// A module path from the crate's root: `["crate", "report", "text"]`.
type ModulePath = Vec<String>;

/// One module (a file, or an inline `mod` in one) and what its code names.
#[derive(Default)]
struct Module {
    /// The file it is written in.
    file: PathBuf,
    /// Its submodules, by name.
    children: BTreeSet<String>,
    /// Names brought in by `use` (as written, relative to this module): a
    /// child module sees them by `super::NAME`, and a re-export is one.
    imports: BTreeMap<String, Vec<String>>,
    /// Everything its code names that may lead out of it: every `use`
    /// (a glob as its prefix) and every path of two segments or more.
    named: Vec<Vec<String>>,
}

/// The crate's modules, keyed by path.
struct Crate {
    modules: BTreeMap<ModulePath, Module>,
    /// The modules compiled for unit tests only (`#[cfg(test)] mod ...`).
    tests: BTreeSet<ModulePath>,
}

impl Crate {
    /// The crate as it is now, parsed once for every test.
    fn parse() -> &'static Crate {
        static PARSED: std::sync::OnceLock<Crate> = std::sync::OnceLock::new();
        PARSED.get_or_init(Crate::read)
    }

    /// Parses treegrade from `src/lib.rs`.
    fn read() -> Crate {
        Crate::read_from(&repo().join("src/lib.rs"))
    }

    /// Parses the crate whose root file is `root`.
    fn read_from(root: &Path) -> Crate {
        let mut krate = Crate { modules: BTreeMap::new(), tests: BTreeSet::new() };
        krate.load(vec!["crate".to_string()], root);
        krate
    }

    /// Parses `file` as the module `path` (again, for a module written once per platform).
    fn load(&mut self, path: ModulePath, file: &Path) {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        let syntax = syn::parse_file(&text).unwrap_or_else(|e| panic!("cannot parse {}: {e}", file.display()));
        let mut reader = Reader { stack: vec![path], found: Vec::new(), declared: Vec::new(), file: file.into() };
        reader.visit_file(&syntax);
        for (path, event) in reader.found {
            let module = self.modules.entry(path.clone()).or_default();
            module.file = file.to_path_buf();
            match event {
                Found::Child(name, test_only) => {
                    module.children.insert(name.clone());
                    if test_only {
                        self.tests.insert(extend(&path, &name));
                    }
                }
                Found::Import(alias, target) => {
                    module.named.push(target.clone());
                    if let Some(alias) = alias {
                        module.imports.insert(alias, target);
                    }
                }
                Found::Path(segments) => module.named.push(segments),
            }
        }
        for (child, child_file) in reader.declared {
            self.load(child, &child_file);
        }
    }

    /// The module that defines what `segments` names, seen from `from`;
    /// `None` for what lies outside the crate (std, other crates) or in `from` itself.
    fn resolve(&self, from: &ModulePath, segments: &[String], depth: usize) -> Option<ModulePath> {
        if depth > 16 || segments.is_empty() {
            return None;
        }
        let (mut module, rest) = match segments[0].as_str() {
            "crate" => (vec!["crate".to_string()], &segments[1..]),
            "self" => (from.clone(), &segments[1..]),
            "super" => {
                let supers = segments.iter().take_while(|segment| *segment == "super").count();
                (from[..from.len().saturating_sub(supers).max(1)].to_vec(), &segments[supers..])
            }
            first => {
                let here = self.modules.get(from)?;
                if here.children.contains(first) {
                    (extend(from, first), &segments[1..])
                } else if let Some(target) = here.imports.get(first) {
                    let whole: Vec<String> = target.iter().chain(&segments[1..]).cloned().collect();
                    return self.resolve(from, &whole, depth + 1);
                } else {
                    return None;
                }
            }
        };
        for (position, segment) in rest.iter().enumerate() {
            let Some(current) = self.modules.get(&module) else { break };
            if current.children.contains(segment) {
                module = extend(&module, segment);
            } else if let Some(target) = current.imports.get(segment) {
                // Re-exported (or visible to a child): what it names is where it is defined.
                let whole: Vec<String> = target.iter().chain(&rest[position + 1..]).cloned().collect();
                return self.resolve(&module, &whole, depth + 1);
            } else {
                break;
            }
        }
        Some(module)
    }

    /// Every import of one module by another: (importer, imported, the path as written).
    fn edges(&self) -> Vec<(ModulePath, ModulePath, String)> {
        let mut edges = Vec::new();
        for (path, module) in &self.modules {
            for named in &module.named {
                if let Some(target) = self.resolve(path, named, 0)
                    && &target != path
                    && !is_within(&target, path)
                {
                    edges.push((path.clone(), target, named.join("::")));
                }
            }
        }
        edges
    }

    /// Whether a module is compiled for unit tests only.
    fn is_test(&self, path: &ModulePath) -> bool {
        (1..=path.len()).any(|length| self.tests.contains(&path[..length]))
    }

    /// The crates and `std` paths a module names (their first segment).
    fn outside_names(&self, path: &ModulePath) -> BTreeSet<String> {
        let module = &self.modules[path];
        module
            .named
            .iter()
            .filter(|named| self.resolve(path, named, 0).is_none())
            .map(|named| self.root_of(module, named, 0))
            .collect()
    }

    /// The first segment of what `named` stands for, through the module's imports.
    fn root_of(&self, module: &Module, named: &[String], depth: usize) -> String {
        match module.imports.get(&named[0]) {
            Some(target) if target.as_slice() != named && depth < 16 => self.root_of(module, target, depth + 1),
            _ => named[0].clone(),
        }
    }
}

/// `path::name`.
fn extend(path: &ModulePath, name: &str) -> ModulePath {
    let mut extended = path.clone();
    extended.push(name.to_string());
    extended
}

/// Whether `inner` is `outer` or one of its submodules. A module's use of
/// its own submodules is how it is made, not an import.
fn is_within(inner: &ModulePath, outer: &ModulePath) -> bool {
    inner.starts_with(outer)
}

/// What reading a file found, for the module it was found in.
enum Found {
    /// A submodule, and whether it is compiled for unit tests only.
    Child(String, bool),
    /// A `use`: the name it brings in (none for a glob) and its path.
    Import(Option<String>, Vec<String>),
    /// A path in code.
    Path(Vec<String>),
}

/// Walks one file, keeping track of inline modules.
struct Reader {
    stack: Vec<ModulePath>,
    found: Vec<(ModulePath, Found)>,
    /// Submodules written in files of their own: their path and file.
    declared: Vec<(ModulePath, PathBuf)>,
    file: PathBuf,
}

impl Reader {
    fn here(&self) -> ModulePath {
        self.stack.last().expect("the file's own module").clone()
    }

    /// The file of `mod name;` written in this file (at the top level of it).
    fn child_file(&self, item: &syn::ItemMod) -> PathBuf {
        let dir = self.file.parent().expect("a source file is in a folder");
        let name = item.ident.to_string();
        if let Some(path) = item.attrs.iter().find_map(path_attribute) {
            return dir.join(path);
        }
        let own_folder = match self.file.file_name().and_then(|n| n.to_str()) {
            Some("lib.rs" | "main.rs" | "mod.rs") => dir.to_path_buf(),
            _ => dir.join(self.file.file_stem().expect("a file name")),
        };
        let flat = own_folder.join(format!("{name}.rs"));
        if flat.is_file() { flat } else { own_folder.join(name).join("mod.rs") }
    }

    fn record(&mut self, found: Found) {
        let here = self.here();
        self.found.push((here, found));
    }

    /// Records each leaf of a `use` tree.
    fn use_tree(&mut self, tree: &syn::UseTree, prefix: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(&path.tree, prefix);
                prefix.pop();
            }
            syn::UseTree::Name(name) if name.ident == "self" => {
                let alias = prefix.last().cloned();
                self.record(Found::Import(alias, prefix.clone()));
            }
            syn::UseTree::Name(name) => {
                let target = [prefix.as_slice(), &[name.ident.to_string()]].concat();
                self.record(Found::Import(Some(name.ident.to_string()), target));
            }
            syn::UseTree::Rename(rename) => {
                let target = if rename.ident == "self" {
                    prefix.clone()
                } else {
                    [prefix.as_slice(), &[rename.ident.to_string()]].concat()
                };
                self.record(Found::Import(Some(rename.rename.to_string()), target));
            }
            syn::UseTree::Glob(_) => self.record(Found::Import(None, prefix.clone())),
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(tree, prefix);
                }
            }
        }
    }
}

/// `#[cfg(test)]`.
fn is_cfg_test(attribute: &syn::Attribute) -> bool {
    attribute.path().is_ident("cfg") && attribute.parse_args::<syn::Ident>().is_ok_and(|predicate| predicate == "test")
}

/// `#[path = "..."]`.
fn path_attribute(attribute: &syn::Attribute) -> Option<String> {
    let syn::Meta::NameValue(pair) = &attribute.meta else { return None };
    if !pair.path.is_ident("path") {
        return None;
    }
    let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(text), .. }) = &pair.value else { return None };
    Some(text.value())
}

impl<'ast> Visit<'ast> for Reader {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        let name = item.ident.to_string();
        self.record(Found::Child(name.clone(), item.attrs.iter().any(is_cfg_test)));
        let child = extend(&self.here(), &name);
        match &item.content {
            Some(_) => {
                self.stack.push(child);
                syn::visit::visit_item_mod(self, item);
                self.stack.pop();
            }
            None => {
                let file = self.child_file(item);
                self.declared.push((child, file));
            }
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        if item.leading_colon.is_none() {
            self.use_tree(&item.tree, &mut Vec::new());
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|segment| segment.ident.to_string()).collect();
        if path.leading_colon.is_none() && segments.len() > 1 {
            self.record(Found::Path(segments));
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_attribute(&mut self, attribute: &'ast syn::Attribute) {
        // `#[derive(clap::ValueEnum)]` names a crate as surely as a `use` does.
        if attribute.path().is_ident("derive")
            && let Ok(derived) = attribute.parse_args_with(Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
        {
            for path in &derived {
                self.visit_path(path);
            }
        }
        syn::visit::visit_attribute(self, attribute);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // `format!`, `assert!`, `vec!`... take expressions: read them as such where they are.
        let parser = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(arguments) = mac.parse_body_with(parser) {
            for argument in &arguments {
                self.visit_expr(argument);
            }
        }
        syn::visit::visit_macro(self, mac);
    }
}

/// The top-level module a module belongs to (`report` for `crate::report::text`).
fn layer_of(path: &ModulePath) -> Option<&str> {
    path.get(1).map(String::as_str)
}

/// The position of a top-level module in [`LAYERS`] (0 is the highest).
fn level(name: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&name))
}

fn shown(path: &ModulePath) -> String {
    path.join("::")
}

/// Every import whose importer is in one of `from` and whose target is in one of `to`.
fn imports_between(krate: &Crate, from: &[&str], to: &[&str]) -> Vec<String> {
    krate
        .edges()
        .into_iter()
        .filter(|(importer, imported, _)| {
            layer_of(importer).is_some_and(|layer| from.contains(&layer))
                && layer_of(imported).is_some_and(|layer| to.contains(&layer))
        })
        .map(|(importer, imported, written)| {
            format!(
                "{} ({}) imports {} as `{written}`",
                shown(&importer),
                krate.modules[&importer].file.display(),
                shown(&imported)
            )
        })
        .collect()
}

/// The import circles among the modules under `prefix` (a top-level
/// module, e.g. `grader`): each strongly connected set of two or more
/// modules, by Tarjan's algorithm.
fn cycles_in(prefix: &str) -> Vec<Vec<String>> {
    let krate = Crate::parse();
    let inside = |path: &ModulePath| layer_of(path) == Some(prefix);
    let nodes: Vec<ModulePath> = krate.modules.keys().filter(|path| inside(path)).cloned().collect();
    let mut next: BTreeMap<ModulePath, BTreeSet<ModulePath>> = BTreeMap::new();
    for (importer, imported, _) in krate.edges() {
        if inside(&importer) && inside(&imported) {
            next.entry(importer).or_default().insert(imported);
        }
    }
    strongly_connected(&nodes, &next)
        .into_iter()
        .filter(|set| set.len() > 1)
        .map(|set| set.iter().map(shown).collect())
        .collect()
}

/// Tarjan's strongly connected components.
fn strongly_connected(nodes: &[ModulePath], next: &BTreeMap<ModulePath, BTreeSet<ModulePath>>) -> Vec<Vec<ModulePath>> {
    struct State<'a> {
        next: &'a BTreeMap<ModulePath, BTreeSet<ModulePath>>,
        index: BTreeMap<ModulePath, usize>,
        low: BTreeMap<ModulePath, usize>,
        stack: Vec<ModulePath>,
        on_stack: BTreeSet<ModulePath>,
        found: Vec<Vec<ModulePath>>,
    }
    fn visit(state: &mut State<'_>, node: &ModulePath) {
        let number = state.index.len();
        state.index.insert(node.clone(), number);
        state.low.insert(node.clone(), number);
        state.stack.push(node.clone());
        state.on_stack.insert(node.clone());
        for target in state.next.get(node).into_iter().flatten() {
            if !state.index.contains_key(target) {
                visit(state, target);
                let low = state.low[node].min(state.low[target]);
                state.low.insert(node.clone(), low);
            } else if state.on_stack.contains(target) {
                let low = state.low[node].min(state.index[target]);
                state.low.insert(node.clone(), low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut set = Vec::new();
            while let Some(member) = state.stack.pop() {
                state.on_stack.remove(&member);
                let done = &member == node;
                set.push(member);
                if done {
                    break;
                }
            }
            set.sort();
            state.found.push(set);
        }
    }
    let mut state = State {
        next,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in nodes {
        if !state.index.contains_key(node) {
            visit(&mut state, node);
        }
    }
    state.found
}

/// Fails with every import circle under `prefix`.
fn assert_no_cycle(prefix: &str) {
    let cycles = cycles_in(prefix);
    let listed: Vec<String> = cycles.iter().map(|set| set.join(" <-> ")).collect();
    assert!(cycles.is_empty(), "import circles in src/{prefix}:\n{}", listed.join("\n"));
}

#[test]
fn every_module_has_a_layer() {
    let krate = Crate::parse();
    let missing: BTreeSet<&str> =
        krate.modules.keys().filter_map(layer_of).filter(|layer| level(layer).is_none()).collect();
    assert!(missing.is_empty(), "modules missing from LAYERS (and docs/architecture.md): {missing:?}");
}

/// Unit tests may borrow from any layer (a random tree from the generator,
/// the bundled assignment through the loader); the code they test may not.
#[test]
fn no_module_imports_a_layer_above_its_own() {
    let found = imports_upward(Crate::parse(), LAYERS);
    assert!(found.is_empty(), "a layer imports one above it:\n{}", found.join("\n"));
}

/// Every import, outside unit tests, of a layer above the importer's in `layers`.
fn imports_upward(krate: &Crate, layers: &[&[&str]]) -> Vec<String> {
    let level = |name: &str| layers.iter().position(|layer| layer.contains(&name));
    let mut found = Vec::new();
    for (importer, imported, written) in krate.edges() {
        if krate.is_test(&importer) {
            continue;
        }
        let (Some(from), Some(to)) = (layer_of(&importer), layer_of(&imported)) else { continue };
        if let (Some(from_level), Some(to_level)) = (level(from), level(to))
            && to_level < from_level
        {
            found.push(format!(
                "{} ({}) imports {}, a layer above it, as `{written}`",
                shown(&importer),
                krate.modules[&importer].file.display(),
                shown(&imported)
            ));
        }
    }
    found
}

#[test]
fn lower_layers_never_name_the_grader_or_above() {
    let lower = [
        "tree",
        "engine",
        "game",
        "play",
        "generator",
        "load",
        "assignment",
        "points",
        "shown",
        "compare",
        "stats",
        "thresholds",
    ];
    let higher = ["grader", "report", "batch", "tournament", "cli", "package", "render"];
    let found = imports_between(Crate::parse(), &lower, &higher);
    assert!(found.is_empty(), "a lower layer names a higher one:\n{}", found.join("\n"));
}

#[test]
fn only_the_loader_knows_yaml() {
    let krate = Crate::parse();
    let found: Vec<String> = krate
        .modules
        .keys()
        .filter(|path| layer_of(path) != Some("load"))
        .filter(|path| krate.outside_names(path).contains("serde_saphyr"))
        .map(|path| format!("{} ({})", shown(path), krate.modules[path].file.display()))
        .collect();
    assert!(found.is_empty(), "YAML outside src/load:\n{}", found.join("\n"));
}

/// Reports know nothing of the command line: the flags' values are built
/// in `src/cli` from the report registry.
#[test]
fn reports_know_no_clap() {
    let krate = Crate::parse();
    let found: Vec<String> = krate
        .modules
        .keys()
        .filter(|path| layer_of(path) == Some("report"))
        .filter(|path| krate.outside_names(path).contains("clap"))
        .map(|path| format!("{} ({})", shown(path), krate.modules[path].file.display()))
        .collect();
    assert!(found.is_empty(), "clap in src/report:\n{}", found.join("\n"));
}

/// The tree layer and the engine know trees only; games sit above them and
/// reach the engine through the `GameTree` seam.
#[test]
fn the_engine_and_the_tree_model_know_no_game() {
    let found = imports_between(Crate::parse(), &["tree", "engine"], &["game", "load"]);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// A course's own knowledge (CS188's mistakes and wording) lives with its
/// importer, not in the engine or the tree model: neither imports it, nor
/// names the course in code.
#[test]
fn the_engine_and_the_tree_model_know_no_course() {
    let mut found = imports_between(Crate::parse(), &["tree", "engine"], &["import"]);
    for layer in ["tree", "engine"] {
        for file in sources(&repo().join("src").join(layer)) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (number, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                if ["CS188", "cs188", "getAction"].iter().any(|word| code.contains(word)) {
                    found.push(format!("{}:{}: {}", file.display(), number + 1, line.trim()));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Every `.rs` file under `path`.
fn sources(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut found = Vec::new();
    for entry in std::fs::read_dir(path).unwrap() {
        found.extend(sources(&entry.unwrap().path()));
    }
    found
}

/// The grader grades and plays; tournaments are built on it, never the other way.
#[test]
fn the_grader_knows_no_tournament() {
    let found = imports_between(Crate::parse(), &["grader", "report", "batch"], &["tournament", "cli"]);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Tournaments share the output-folder plumbing with batches (`outdir`) and
/// borrow nothing from them.
#[test]
fn tournaments_borrow_nothing_from_batches() {
    let found = imports_between(Crate::parse(), &["tournament"], &["batch"]);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn reports_only_read_results() {
    let found = imports_between(Crate::parse(), &["report"], &["batch", "cli", "package"]);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_graders_modules_have_no_import_circle() {
    assert_no_cycle("grader");
}

/// The report draws planned searches through `report::Drawable`, so it
/// names no planning type of the grader.
#[test]
fn reports_know_no_plan() {
    let krate = Crate::parse();
    let planning = |path: &ModulePath| {
        let shown = shown(path);
        ["crate::grader::plan", "crate::grader::prepare"].iter().any(|module| shown.starts_with(module))
    };
    let found: Vec<String> = krate
        .edges()
        .into_iter()
        .filter(|(importer, imported, _)| {
            layer_of(importer) == Some("report") && !krate.is_test(importer) && planning(imported)
        })
        .map(|(importer, imported, written)| {
            format!("{} imports {} as `{written}`", shown(&importer), shown(&imported))
        })
        .collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn batches_tournaments_and_reports_have_no_import_circle() {
    for prefix in ["batch", "tournament", "report"] {
        assert_no_cycle(prefix);
    }
}

/// The reader itself: `super::`, grouped trees, renames, re-exports and
/// paths in code all reach the module that defines what they name.
#[test]
fn imports_resolve_to_the_module_that_defines_them() {
    let krate = Crate::parse();
    let path = |text: &str| -> ModulePath { text.split("::").map(str::to_string).collect() };
    let from = path("crate::tournament::store");
    let resolve = |written: &str| krate.resolve(&from, &path(written), 0).map(|found| shown(&found));
    assert_eq!(resolve("super::Settings").as_deref(), Some("crate::tournament"));
    assert_eq!(resolve("crate::outdir::write_atomically").as_deref(), Some("crate::outdir"));
    // A re-export leads to where the item is defined.
    assert_eq!(resolve("crate::outdir::Shard").as_deref(), Some("crate::outdir::shard"));
    assert_eq!(resolve("crate::report::Format").as_deref(), Some("crate::report::formats"));
    assert_eq!(resolve("std::io::Result"), None);
    let edges = krate.edges();
    let imports = |importer: &str, imported: &str| {
        edges.iter().any(|(from, to, _)| shown(from) == importer && shown(to) == imported)
    };
    // `use super::{Entrant, Settings};` in a group.
    assert!(imports("crate::tournament::store", "crate::tournament"));
    // `use crate::grader::{Staged, Target, stage};`, re-exported from `grader::staging`.
    assert!(imports("crate::tournament", "crate::grader::staging"));
    // A path in an expression: `crate::play::tally(..)`.
    assert!(imports("crate::tournament", "crate::play"));
    // A module's use of its own submodules is not an import.
    assert!(!imports("crate::tournament", "crate::tournament::store"));
    assert!(krate.is_test(&path("crate::pool::tests")));
    assert!(!krate.is_test(&path("crate::pool")));
}

#[test]
fn an_import_circle_is_found() {
    let next: BTreeMap<ModulePath, BTreeSet<ModulePath>> = [
        (vec!["a".to_string()], BTreeSet::from([vec!["b".to_string()]])),
        (vec!["b".to_string()], BTreeSet::from([vec!["a".to_string()], vec!["c".to_string()]])),
    ]
    .into_iter()
    .collect();
    let nodes = vec![vec!["a".to_string()], vec!["b".to_string()], vec!["c".to_string()]];
    let sets: Vec<Vec<ModulePath>> =
        strongly_connected(&nodes, &next).into_iter().filter(|set| set.len() > 1).collect();
    assert_eq!(sets, vec![vec![vec!["a".to_string()], vec!["b".to_string()]]]);
}

/// A small crate of three layers (`top` over `middle` over `low`) whose
/// lower layers import upward in every way a substring search misses.
fn fixture_crate(dir: &Path) -> Crate {
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod top;\npub mod middle;\nmod low;\n");
    write("top.rs", "pub struct Page;\npub mod parts { pub fn part() {} }\n");
    write(
        "middle/mod.rs",
        "mod inner;\n#[cfg(unix)]\n#[path = \"unix.rs\"]\nmod os;\npub use inner::Shared;\n\
         #[cfg(test)]\nmod tests { use crate::top::Page; }\n",
    );
    write("middle/inner.rs", "use crate::{low::Leaf, top::parts};\npub struct Shared;\n");
    write("middle/unix.rs", "#[derive(Clone, clap::ValueEnum)]\npub enum Mode { A }\n");
    write(
        "low.rs",
        "pub struct Leaf;\nfn f() -> usize { let page = super::top::Page; std::mem::size_of_val(&page) }\n\
         fn g() { crate::middle::Shared; }\n",
    );
    Crate::read_from(&dir.join("lib.rs"))
}

/// The reader on a crate written for it: grouped trees, `super::` in an
/// expression, re-exports, `#[path]`, derives and unit tests.
#[test]
fn upward_imports_are_found_however_they_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let krate = fixture_crate(dir.path());
    let layers: &[&[&str]] = &[&["top"], &["middle"], &["low"]];
    let found = imports_upward(&krate, layers);
    let says = |text: &str| found.iter().any(|line| line.contains(text));
    // A grouped `use crate::{low::Leaf, top::parts}` reaches `top`'s inline module.
    assert!(says("crate::middle::inner (") && says("imports crate::top::parts"), "{found:#?}");
    // `super::top::Page` in an expression.
    assert!(says("crate::low (") && says("imports crate::top,"), "{found:#?}");
    // `crate::middle::Shared`, re-exported from `middle::inner`, is `inner`'s.
    assert!(says("imports crate::middle::inner,"), "{found:#?}");
    // A unit test may borrow from above.
    assert!(!says("crate::middle::tests"), "{found:#?}");
    assert_eq!(found.len(), 3, "{found:#?}");
    // `#[path = "unix.rs"] mod os;` is read, and its derive names clap.
    let os: ModulePath = ["crate", "middle", "os"].map(String::from).to_vec();
    assert!(krate.outside_names(&os).contains("clap"));
}

/// The `.rs` files under `src/`, as paths relative to the repository, with their text.
fn source_texts() -> Vec<(String, String)> {
    let root = repo();
    sources(&root.join("src"))
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            let relative = path.strip_prefix(&root).expect("under the repository").to_string_lossy().replace('\\', "/");
            (relative, text)
        })
        .collect()
}

/// The files of `src/` (relative paths, sorted) whose text passes `test`.
fn files_where(test: impl Fn(&str) -> bool) -> Vec<String> {
    let mut files: Vec<String> =
        source_texts().into_iter().filter(|(_, text)| test(text)).map(|(path, _)| path).collect();
    files.sort();
    files
}

/// A file's code without its comments and its unit tests (the
/// `#[cfg(test)] mod tests` each file ends with).
fn code_only(text: &str) -> String {
    let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    code.lines().map(|line| line.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// Whether `code` has `word` as an identifier.
fn names(code: &str, word: &str) -> bool {
    code.split(|c: char| !c.is_alphanumeric() && c != '_').any(|token| token == word)
}

#[test]
fn a_setting_of_searches_is_an_entry_of_the_table_and_the_engine() {
    // Forward pruning (docs/format.md 8.5) is read, checked, written,
    // carried to programs and offered as flags through the engine's table of
    // settings (`engine/settings.rs`); only the search that runs it and the
    // mistakes students make with it name it, in code or in comments.
    let words = ["forward_pruning", "forward-pruning", "ForwardPruning", "forward_prunes"];
    let named = files_where(|text| words.iter().any(|word| text.contains(word)));
    assert_eq!(
        named,
        ["src/engine/mistakes.rs", "src/engine/mod.rs", "src/engine/settings.rs", "src/engine/variant.rs"],
        "forward pruning is named outside the registry, the engine and the diagnosis's mistakes"
    );
}

#[test]
fn mcts_exploration_goes_through_the_table_too() {
    // Outside the engine, MCTS's `exploration` (8.4) is named in code only
    // by the assignment, whose questions may set it (a question's own key).
    let named = files_where(|text| names(&code_only(text), "exploration"));
    let outside: Vec<&String> = named.iter().filter(|path| !path.starts_with("src/engine/")).collect();
    assert_eq!(outside, ["src/load/assignment.rs"]);
}
