//! Data flows one way through the crate's top-level modules: each sits in a layer and may name
//! only modules of the layers below it (ARCHITECTURE.md draws them). This test walks the module
//! tree from `src/lib.rs` as the compiler does (`mod` items, `#[path]`, inline modules), parses
//! every file, and resolves each path it writes — `use` trees, paths in expressions and types,
//! macro bodies — from its `crate::`/`super::`/`self::` start to the top-level module it
//! reaches. The checker is tested on planted examples first.

use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// Lowest first. A module may import any module of a lower layer, none of its own layer or
/// above (faces of one layer stay independent of each other). The binary's `main.rs` sits on
/// top of `commands` and is not part of the library.
const LAYERS: &[(&str, &[&str])] = &[
    ("the pure engine", &["engine"]),
    ("the store", &["store"]),
    (
        "loaders and wire types",
        &["dialects", "protocol", "hosted"],
    ),
    (
        "configuration and shared wording",
        &["config", "report", "theme"],
    ),
    ("the session layer and image export", &["session", "export"]),
    ("faces", &["hook", "tui", "mcp"]),
    ("replay through the dashboard", &["replay"]),
    ("composite faces", &["learn", "demo"]),
    ("the command line", &["cli"]),
    ("commands", &["commands"]),
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, mods)| mods.contains(&module))
}

struct Checker<'a> {
    /// The module the code is in (`["tui", "feed"]`; empty for the crate root).
    module: Vec<String>,
    file: &'a str,
    findings: Vec<String>,
}

impl Checker<'_> {
    /// The top-level module a path written here reaches, when it leaves this one.
    fn target(&self, segs: &[String]) -> Option<String> {
        let first = segs.first()?;
        match first.as_str() {
            "crate" => segs.get(1).cloned(),
            "super" => {
                let mut m = self.module.clone();
                let mut rest = segs;
                while rest.first().is_some_and(|s| s == "super") {
                    m.pop();
                    rest = &rest[1..];
                }
                m.first().cloned().or_else(|| rest.first().cloned())
            }
            // `self::x` and bare names stay in this module (or name an outside crate).
            _ => None,
        }
    }

    fn check(&mut self, segs: &[String], line: usize) {
        let (Some(target), Some(own)) = (self.target(segs), self.module.first()) else {
            return;
        };
        if &target == own {
            return;
        }
        let (Some(from), Some(to)) = (layer_of(own), layer_of(&target)) else {
            // Not a module (a macro or item of the crate root): nothing to order.
            return;
        };
        if to >= from {
            let (own_name, _) = LAYERS[from];
            let (to_name, _) = LAYERS[to];
            let how = if to == from { "beside" } else { "above" };
            self.findings.push(format!(
                "{}:{line}: `{}` — {own} ({own_name}, layer {from}) imports {target} ({to_name}, \
                 layer {to}), {how} it; move the shared part down a layer or pass it in",
                self.file,
                segs.join("::"),
            ));
        }
    }

    fn use_tree(&mut self, prefix: &[String], tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                let mut next = prefix.to_vec();
                next.push(p.ident.to_string());
                self.use_tree(&next, &p.tree);
            }
            syn::UseTree::Name(n) => self.named(prefix, &n.ident),
            syn::UseTree::Rename(r) => self.named(prefix, &r.ident),
            syn::UseTree::Glob(g) => self.check(prefix, g.star_token.spans[0].start().line),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.use_tree(prefix, t)),
        }
    }

    fn named(&mut self, prefix: &[String], ident: &syn::Ident) {
        let mut segs = prefix.to_vec();
        if ident != "self" {
            segs.push(ident.to_string());
        }
        self.check(&segs, ident.span().start().line);
    }
}

impl<'ast> Visit<'ast> for Checker<'_> {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&[], &u.tree);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        // An inline module's paths are relative to it.
        if m.content.is_some() {
            self.module.push(m.ident.to_string());
            syn::visit::visit_item_mod(self, m);
            self.module.pop();
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        let line = p
            .segments
            .first()
            .map_or(0, |s| s.ident.span().start().line);
        self.check(&segs, line);
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // Macro bodies are tokens to syn: read them as expressions so a path in `format!` or
        // `assert!` is checked like any other.
        let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(args) = m.parse_body_with(parser) {
            args.iter().for_each(|e| self.visit_expr(e));
        }
        syn::visit::visit_macro(self, m);
    }
}

/// Findings for one file's source, as the module `module` (`tui::feed`).
fn check_source(file: &str, module: &str, text: &str) -> Result<Vec<String>, String> {
    let ast = syn::parse_file(text).map_err(|e| format!("{file}: does not parse: {e}"))?;
    let mut c = Checker {
        module: module
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect(),
        file,
        findings: Vec::new(),
    };
    c.visit_file(&ast);
    Ok(c.findings)
}

/// A source file of the library and the module it is.
struct Source {
    path: PathBuf,
    module: Vec<String>,
}

/// Every file the module tree reaches from `file`, as the compiler finds them: `mod x;` is
/// `x.rs` or `x/mod.rs` in `dir` (unless `#[path]` says), and inline modules nest `dir`.
fn walk(file: &Path, module: Vec<String>, dir: &Path, out: &mut Vec<Source>) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let ast = syn::parse_file(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    walk_items(&ast.items, file, &module, dir, out)?;
    out.push(Source {
        path: file.to_path_buf(),
        module,
    });
    Ok(())
}

fn walk_items(
    items: &[syn::Item],
    file: &Path,
    module: &[String],
    dir: &Path,
    out: &mut Vec<Source>,
) -> Result<(), String> {
    for item in items {
        let syn::Item::Mod(m) = item else { continue };
        let name = m.ident.to_string();
        let mut child = module.to_vec();
        child.push(name.clone());
        if let Some((_, inner)) = &m.content {
            walk_items(inner, file, &child, &dir.join(&name), out)?;
            continue;
        }
        let from_attr = m.attrs.iter().find_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        });
        let base = file.parent().unwrap_or(dir);
        let (path, child_dir) = match from_attr {
            Some(p) => (base.join(&p), base.join(&p).with_extension("")),
            None if dir.join(format!("{name}.rs")).is_file() => {
                (dir.join(format!("{name}.rs")), dir.join(&name))
            }
            None => (dir.join(&name).join("mod.rs"), dir.join(&name)),
        };
        walk(&path, child, &child_dir, out)?;
    }
    Ok(())
}

/// Every `.rs` file under `dir`, depth first.
pub(crate) fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable directory") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rs_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_imports_one_of_its_layer_or_above() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sources = Vec::new();
    walk(&src.join("lib.rs"), Vec::new(), &src, &mut sources).expect("the module tree reads");
    // Every file is checked: one the walk missed could import anything.
    let mut all = Vec::new();
    rs_files(&src, &mut all);
    let reached: Vec<&Path> = sources.iter().map(|s| s.path.as_path()).collect();
    let missed: Vec<String> = all
        .iter()
        // Executables (main.rs, bin/) are the crate's users, above every layer.
        .filter(|f| {
            !reached.contains(&f.as_path())
                && f.file_name() != Some("main.rs".as_ref())
                && !f.starts_with(src.join("bin"))
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        missed.is_empty(),
        "files the module walk did not reach: {missed:?}"
    );
    // Every top-level module has a layer.
    let tops: std::collections::BTreeSet<&str> = sources
        .iter()
        .filter_map(|s| s.module.first().map(String::as_str))
        .collect();
    let unplaced: Vec<&&str> = tops.iter().filter(|t| layer_of(t).is_none()).collect();
    assert!(
        unplaced.is_empty(),
        "top-level modules without a layer: {unplaced:?} — add each to LAYERS here and to \
         ARCHITECTURE.md"
    );
    let mut findings = Vec::new();
    for s in &sources {
        let rel = s
            .path
            .strip_prefix(&src)
            .unwrap_or(&s.path)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&s.path).expect("readable");
        findings.extend(check_source(&rel, &s.module.join("::"), &text).expect("parses"));
    }
    assert!(sources.len() > 100, "walked {} files", sources.len());
    assert!(
        findings.is_empty(),
        "data flows one way (see ARCHITECTURE.md):\n{}",
        findings.join("\n")
    );
}

#[test]
fn the_layers_name_each_module_once() {
    let mut seen = std::collections::BTreeSet::new();
    for (_, mods) in LAYERS {
        for m in *mods {
            assert!(seen.insert(*m), "{m} is in two layers");
        }
    }
}

fn planted(module: &str, text: &str) -> Vec<String> {
    check_source("planted.rs", module, text).expect("parses")
}

#[test]
fn the_checker_finds_every_way_up() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "store::log",
            "use crate::session::records;",
            "imports session",
        ),
        ("store::log", "use super::super::tui::App;", "imports tui"),
        ("store", "use super::hook::run;", "imports hook"),
        (
            "store::log",
            "use crate::{engine::Machine, commands::CmdError};",
            "imports commands",
        ),
        (
            "store::log",
            "fn f() { crate::mcp::serve(); }",
            "imports mcp",
        ),
        (
            "store::log",
            "fn f() -> String { format!(\"{}\", crate::report::x()) }",
            "imports report",
        ),
        ("store::log", "fn f(_: crate::tui::Model) {}", "imports tui"),
        ("store::log", "use crate::commands::*;", "imports commands"),
        ("mcp::tools", "use crate::tui::Model;", "beside it"),
        (
            "session::view",
            "mod tests { use super::super::super::hook::x; }",
            "imports hook",
        ),
    ];
    for (module, src, says) in cases {
        let found = planted(module, src);
        assert_eq!(found.len(), 1, "{src}\n{found:#?}");
        assert!(
            found[0].contains(says),
            "{src}: expected `{says}` in {found:#?}"
        );
    }
    let found = planted("replay::frame", "\n\nuse crate::commands::status;");
    assert_eq!(
        found,
        [
            "planted.rs:3: `crate::commands::status` — replay (replay through the dashboard, \
          layer 6) imports commands (commands, layer 9), above it; move the shared part down a \
          layer or pass it in"
        ]
    );
}

#[test]
fn the_checker_lets_downward_and_local_paths_through() {
    let src = r#"
        use std::collections::BTreeMap;
        use super::paths;
        use self::inner::X;
        use crate::engine::{Machine, Snapshot};
        use crate::store::record::Record;
        use fold::Folder;
        // crate::commands in a comment is no import.
        fn f() -> String { let s = "crate::tui::Model, only words"; format!("{s}") }
        mod inner { pub struct X; use super::super::choice::Pick; }
    "#;
    assert_eq!(planted("session::view", src), Vec::<String>::new());
}
