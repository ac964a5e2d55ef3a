//! The engine reads no files, clock, environment or terminal, starts no threads and knows
//! nothing of the hosts around it. This test parses every file under `src/engine` as Rust and
//! resolves each path it names — `use` trees with groups and renames, `self`/`super`/`crate`
//! prefixes, paths inside expressions, types and macro bodies — so neither a comment, a string
//! nor `use std::{fs, env}` can fool it. The checker is tested on planted examples first.

use std::collections::HashMap;
use std::path::Path;

use syn::visit::Visit;

/// Paths the engine must not reach, as segment prefixes.
const FORBIDDEN: &[(&str, &str)] = &[
    ("std::fs", "the file system"),
    ("std::env", "the environment"),
    ("std::time::SystemTime", "the clock"),
    ("std::time::Instant", "the clock"),
    ("std::time::UNIX_EPOCH", "the clock"),
    ("std::net", "the network"),
    ("std::process", "processes"),
    ("std::thread", "threads"),
    ("std::io", "standard input/output and files"),
    ("std::os", "the operating system"),
    ("tokio", "the async runtime"),
    ("ratatui", "the terminal"),
    ("crossterm", "the terminal"),
    ("notify", "file watching"),
    ("etcetera", "the platform's directories"),
    ("crate::store", "the store (a host)"),
    ("crate::hook", "the hook (a host)"),
    ("crate::tui", "the dashboard (a host)"),
    ("crate::commands", "the commands (hosts)"),
    ("crate::mcp", "the MCP server (a host)"),
    (
        "crate::protocol",
        "Claude Code's wire types (the host's job)",
    ),
    (
        "crate::config",
        "configuration (read from files by the host)",
    ),
];

/// Macros that write to the terminal.
const PRINTING_MACROS: &[&str] = &["print", "println", "eprint", "eprintln", "dbg"];

/// `std` is also reachable as `core` and `alloc` for the parts they share.
fn normalize(mut segs: Vec<String>) -> Vec<String> {
    if matches!(segs.first().map(String::as_str), Some("core" | "alloc")) {
        segs[0] = "std".into();
    }
    segs
}

struct Checker<'a> {
    /// The module the file is (`crate::engine::step`), for `self` and `super`.
    module: Vec<String>,
    /// Names brought in by `use` (or `extern crate … as`), to their full paths.
    aliases: HashMap<String, Vec<String>>,
    findings: Vec<String>,
    file: &'a str,
}

impl Checker<'_> {
    /// The absolute path a path written in this module names.
    fn resolve(&self, segs: &[String]) -> Vec<String> {
        let Some(first) = segs.first() else {
            return Vec::new();
        };
        let mut out: Vec<String> = match first.as_str() {
            "crate" => return normalize(segs.to_vec()),
            "self" => self.module.clone(),
            "super" => {
                let mut m = self.module.clone();
                let mut rest = segs;
                while rest.first().is_some_and(|s| s == "super") {
                    m.pop();
                    rest = &rest[1..];
                }
                m.extend(rest.iter().cloned());
                return m;
            }
            name => match self.aliases.get(name) {
                Some(full) => full.clone(),
                None => vec![name.to_string()],
            },
        };
        out.extend(segs[1..].iter().cloned());
        normalize(out)
    }

    fn check(&mut self, segs: &[String], line: usize, what: &str) {
        let full = self.resolve(segs);
        let shown = full.join("::");
        for (prefix, why) in FORBIDDEN {
            let p: Vec<&str> = prefix.split("::").collect();
            if full.len() >= p.len() && full.iter().zip(&p).all(|(a, b)| a == b) {
                self.findings.push(format!(
                    "{}:{line}: {what} `{shown}` reaches {why}",
                    self.file
                ));
                return;
            }
        }
        // jiff's clock: `Timestamp::now()`, `Zoned::now()`.
        if full.first().is_some_and(|s| s == "jiff") && full.iter().any(|s| s == "now") {
            self.findings.push(format!(
                "{}:{line}: {what} `{shown}` reads the clock",
                self.file
            ));
        }
    }

    /// Every path a `use` tree names, with the names it binds.
    fn use_tree(&mut self, prefix: &[String], tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                let mut next = prefix.to_vec();
                next.push(p.ident.to_string());
                self.use_tree(&next, &p.tree);
            }
            syn::UseTree::Name(n) => self.bind(prefix, &n.ident, &n.ident),
            syn::UseTree::Rename(r) => self.bind(prefix, &r.ident, &r.rename),
            syn::UseTree::Glob(g) => {
                let line = g.star_token.spans[0].start().line;
                self.check(prefix, line, "use");
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    fn bind(&mut self, prefix: &[String], ident: &syn::Ident, name: &syn::Ident) {
        let mut segs = prefix.to_vec();
        // `use std::io::{self}` names the module itself.
        if ident != "self" {
            segs.push(ident.to_string());
        }
        self.check(&segs, ident.span().start().line, "use");
        let full = self.resolve(&segs);
        let bound = if name == "self" {
            segs.last().cloned().unwrap_or_default()
        } else {
            name.to_string()
        };
        self.aliases.insert(bound, full);
    }
}

impl<'ast> Visit<'ast> for Checker<'_> {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&[], &u.tree);
    }

    fn visit_item_extern_crate(&mut self, e: &'ast syn::ItemExternCrate) {
        let segs = vec![e.ident.to_string()];
        self.check(&segs, e.ident.span().start().line, "extern crate");
        if let Some((_, rename)) = &e.rename {
            self.aliases.insert(rename.to_string(), segs);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        // `#[path = "../store/…"]` would pull a host file in as an engine module.
        if m.attrs.iter().any(|a| a.path().is_ident("path")) {
            self.findings.push(format!(
                "{}:{}: `#[path]` on mod `{}` loads a file from outside the engine",
                self.file,
                m.ident.span().start().line,
                m.ident
            ));
        }
        syn::visit::visit_item_mod(self, m);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        let line = p
            .segments
            .first()
            .map(|s| s.ident.span().start().line)
            .unwrap_or(0);
        self.check(&segs, line, "path");
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let line = m
            .path
            .segments
            .first()
            .map(|s| s.ident.span().start().line)
            .unwrap_or(0);
        if let Some(last) = m.path.segments.last()
            && PRINTING_MACROS.contains(&last.ident.to_string().as_str())
        {
            self.findings.push(format!(
                "{}:{line}: `{}!` writes to the terminal",
                self.file, last.ident
            ));
        }
        // Macro bodies are tokens to syn: read them as expressions (`format!`, `vec!`,
        // `assert!`…) so a path inside one is checked like any other.
        let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(args) = m.parse_body_with(parser) {
            for e in &args {
                self.visit_expr(e);
            }
        }
        syn::visit::visit_macro(self, m);
    }
}

/// Findings for one file's source, as the module `module` (`crate::engine::x`).
fn check_source(file: &str, module: &str, text: &str) -> Result<Vec<String>, String> {
    let ast = syn::parse_file(text).map_err(|e| format!("{file}: does not parse: {e}"))?;
    let mut c = Checker {
        module: module.split("::").map(String::from).collect(),
        aliases: HashMap::new(),
        findings: Vec::new(),
        file,
    };
    c.visit_file(&ast);
    Ok(c.findings)
}

#[test]
fn the_engine_reaches_no_io_clock_env_terminal_thread_or_host() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    crate::layers::rs_files(&root.join("engine"), &mut files);
    files.sort();
    assert!(files.len() >= 10, "found {} engine files", files.len());
    let mut findings = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&root).expect("under src");
        let stem: Vec<String> = rel
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .filter(|c| c != "mod")
            .collect();
        let module = format!("crate::{}", stem.join("::"));
        let text = std::fs::read_to_string(f).expect("readable");
        findings.extend(check_source(&rel.display().to_string(), &module, &text).expect("parses"));
    }
    assert!(
        findings.is_empty(),
        "the engine must stay pure:\n{}",
        findings.join("\n")
    );
}

fn planted(text: &str) -> Vec<String> {
    check_source("planted.rs", "crate::engine::planted", text).expect("parses")
}

#[test]
fn the_checker_finds_what_a_text_match_misses() {
    let cases: &[(&str, &str, usize)] = &[
        ("use std::{fs, env};", "std::fs", 2),
        (
            "fn f() -> jiff::Timestamp { jiff::Timestamp::now() }",
            "jiff::Timestamp::now",
            1,
        ),
        (
            "use jiff::Timestamp;\nfn f() { let _ = Timestamp::now(); }",
            "jiff::Timestamp::now",
            1,
        ),
        ("use crate::store::paths;", "crate::store::paths", 1),
        ("use super::super::tui::App;", "crate::tui::App", 1),
        (
            "use crate::{config::Config, engine::ir::Chart};",
            "crate::config::Config",
            1,
        ),
        (
            r#"fn f() { let url = "http://x"; let _ = std::fs::read(url); }"#,
            "std::fs::read",
            1,
        ),
        (
            "fn f() -> String { format!(\"{:?}\", std::env::var(\"HOME\")) }",
            "std::env::var",
            1,
        ),
        (
            "use std as s;\nfn f() { s::process::exit(1) }",
            "std::process::exit",
            1,
        ),
        (
            "use std::time::{Duration, Instant};",
            "std::time::Instant",
            1,
        ),
        (
            "fn f() -> ::std::io::Stdout { ::std::io::stdout() }",
            "std::io::Stdout",
            2,
        ),
        (
            "use core::time::Duration; use std::io::{self, Write};",
            "std::io",
            2,
        ),
        (
            "extern crate tokio as rt;\nfn f() { rt::spawn(async {}); }",
            "tokio",
            2,
        ),
        ("fn f() { println!(\"hi\"); }", "`println!`", 1),
        ("#[path = \"../store/log.rs\"]\nmod log;", "`#[path]`", 1),
    ];
    for (src, names, count) in cases {
        let found = planted(src);
        assert_eq!(found.len(), *count, "{src}\n{found:#?}");
        assert!(
            found.iter().any(|f| f.contains(names)),
            "{src}: expected `{names}` in {found:#?}"
        );
    }
}

#[test]
fn the_checker_lets_pure_code_through() {
    let src = r#"
        use std::collections::{BTreeMap, HashSet};
        use std::fmt;
        use std::time::Duration;
        use super::ir::Chart;
        use crate::engine::pattern::Pattern;
        // std::fs::read in a comment is not a call.
        fn f(c: &Chart) -> String {
            let s = "std::env::var and tokio::spawn, only words";
            let _: BTreeMap<String, Duration> = BTreeMap::new();
            format!("{s} {}", c.name)
        }
    "#;
    assert_eq!(planted(src), Vec::<String>::new());
    // The line of a finding is where the path is written.
    let found = planted("use std::fmt;\n\nfn f() {\n    std::thread::spawn(|| ());\n}");
    assert_eq!(
        found,
        ["planted.rs:4: path `std::thread::spawn` reaches threads"]
    );
}
