//! No `Result<_, String>` crosses a module boundary (docs/architecture.md,
//! "Errors and exit codes"): every function and method visible outside its
//! module (`pub`, `pub(crate)`, `pub(super)`), every method of a public
//! trait, every public field (a table's `fn` pointer) and public type alias
//! errs with a type of its own, which keeps its cause as `#[source]`. The
//! sources are parsed (`syn`), so a signature over several lines, or a
//! `Result<Vec<T>, String>` that a line-by-line grep misses, is found too.

use std::path::{Path, PathBuf};

use syn::visit::{self, Visit};

use crate::common::repo;

/// The few that may stay, each with why.
const ALLOWED: &[(&str, &str, &str)] = &[
    // A clap value parser: clap takes the message as a String.
    ("src/cli/report_format.rs", "parse_report", "clap value parser"),
    // Not an error: the fast path gives the file's text back to the full loader.
    ("src/load/fast.rs", "load", "gives its input back"),
];

/// Whether a type names `Result<_, String>` anywhere in it.
#[derive(Default)]
struct StringResult(bool);

impl<'ast> Visit<'ast> for StringResult {
    fn visit_path_segment(&mut self, segment: &'ast syn::PathSegment) {
        if segment.ident == "Result"
            && let syn::PathArguments::AngleBracketed(args) = &segment.arguments
        {
            let types: Vec<&syn::Type> = args
                .args
                .iter()
                .filter_map(|arg| match arg {
                    syn::GenericArgument::Type(ty) => Some(ty),
                    _ => None,
                })
                .collect();
            if let [_, syn::Type::Path(error)] = types.as_slice() {
                self.0 |= error.path.segments.last().is_some_and(|last| last.ident == "String");
            }
        }
        visit::visit_path_segment(self, segment);
    }
}

fn names_string_result(visit: impl FnOnce(&mut StringResult)) -> bool {
    let mut finder = StringResult::default();
    visit(&mut finder);
    finder.0
}

/// The items of one file that cross its module's boundary with a `String` error.
struct Finder<'a> {
    file: &'a str,
    found: Vec<String>,
}

impl Finder<'_> {
    fn check_signature(&mut self, vis: Option<&syn::Visibility>, signature: &syn::Signature) {
        if vis.is_some_and(|vis| matches!(vis, syn::Visibility::Inherited)) {
            return;
        }
        let name = signature.ident.to_string();
        if names_string_result(|finder| finder.visit_signature(signature))
            && !ALLOWED.iter().any(|(file, allowed, _)| *file == self.file && *allowed == name)
        {
            self.found.push(format!("{}: fn {name}", self.file));
        }
    }
}

fn is_cfg_test(attribute: &syn::Attribute) -> bool {
    attribute.path().is_ident("cfg") && attribute.parse_args::<syn::Ident>().is_ok_and(|predicate| predicate == "test")
}

fn is_visible(vis: &syn::Visibility) -> bool {
    !matches!(vis, syn::Visibility::Inherited)
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_item_mod(&mut self, module: &'ast syn::ItemMod) {
        if !module.attrs.iter().any(is_cfg_test) {
            visit::visit_item_mod(self, module);
        }
    }

    fn visit_item_fn(&mut self, function: &'ast syn::ItemFn) {
        self.check_signature(Some(&function.vis), &function.sig);
    }

    fn visit_item_impl(&mut self, block: &'ast syn::ItemImpl) {
        // A trait's impl is checked where the trait is declared.
        if block.trait_.is_some() {
            return;
        }
        for item in &block.items {
            if let syn::ImplItem::Fn(method) = item {
                self.check_signature(Some(&method.vis), &method.sig);
            }
        }
    }

    fn visit_item_trait(&mut self, declared: &'ast syn::ItemTrait) {
        if !is_visible(&declared.vis) {
            return;
        }
        for item in &declared.items {
            if let syn::TraitItem::Fn(method) = item {
                self.check_signature(None, &method.sig);
            }
        }
    }

    fn visit_field(&mut self, field: &'ast syn::Field) {
        if is_visible(&field.vis) && names_string_result(|finder| finder.visit_type(&field.ty)) {
            let name = field.ident.as_ref().map_or_else(|| "a tuple field".to_string(), ToString::to_string);
            self.found.push(format!("{}: field {name}", self.file));
        }
    }

    fn visit_item_type(&mut self, alias: &'ast syn::ItemType) {
        if is_visible(&alias.vis) && names_string_result(|finder| finder.visit_type(&alias.ty)) {
            self.found.push(format!("{}: type {}", self.file, alias.ident));
        }
    }
}

/// What crosses a module boundary with a `String` error in `source` (the
/// text of the file `file`).
fn crossing(file: &str, source: &str) -> Vec<String> {
    let parsed = syn::parse_file(source).unwrap_or_else(|error| panic!("{file}: {error}"));
    let mut finder = Finder { file, found: Vec::new() };
    finder.visit_file(&parsed);
    finder.found
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn no_string_error_crosses_a_module_boundary() {
    let root = repo();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    assert!(files.len() > 100, "the sources were found: {}", files.len());
    let mut found = Vec::new();
    for path in &files {
        let name = path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        found.extend(crossing(&name, &std::fs::read_to_string(path).unwrap()));
    }
    assert!(found.is_empty(), "give these an error type of their own:\n{}", found.join("\n"));
}

/// The scan finds each form it looks for, and leaves private helpers,
/// trait impls and tests alone.
#[test]
fn the_scan_finds_each_form() {
    let source = r#"
        pub fn one() -> Result<u8, String> { Ok(1) }
        pub(crate) fn nested(
            text: &str,
        ) -> Result<Vec<Option<u8>>, String> { Ok(vec![]) }
        pub struct Table { pub check: fn(u8) -> Result<(), String>, private: fn() -> Result<(), String> }
        pub type Alias = Result<(), String>;
        pub trait Asks { fn ask(&self) -> Result<u8, std::string::String>; }
        impl Table { pub fn method(&self) -> Option<Result<(), String>> { None } fn helper() -> Result<(), String> { Ok(()) } }
        impl Asks for Table { fn ask(&self) -> Result<u8, String> { Ok(1) } }
        fn private() -> Result<(), String> { Ok(()) }
        pub fn typed() -> Result<(), std::io::Error> { Ok(()) }
        #[cfg(test)]
        mod tests { pub fn helper() -> Result<(), String> { Ok(()) } }
    "#;
    assert_eq!(
        crossing("x.rs", source),
        ["x.rs: fn one", "x.rs: fn nested", "x.rs: field check", "x.rs: type Alias", "x.rs: fn ask", "x.rs: fn method"]
    );
    assert!(
        crossing("src/load/fast.rs", "pub(super) fn load(text: String) -> Result<u8, String> { Ok(1) }").is_empty()
    );
}
