//! The mutations and the parsers they are fed to.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

/// One input to start from: what it is (which parser reads it) and its bytes.
#[derive(Debug, Clone)]
struct Seed {
    kind: Kind,
    name: String,
    bytes: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Payload,
    Records,
    Sequence,
    Transcript,
    Config,
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Files of `dir` (relative to the crate) ending in `ext`, at most `max` bytes each.
fn seeds_in(dir: &str, ext: &str, kind: Kind, out: &mut Vec<Seed>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    if !root.exists() {
        println!("fuzz: skipped seeds from {dir} (not there)");
        return;
    }
    let mut files = Vec::new();
    files_under(&root, &mut files);
    files.sort();
    for f in files {
        let name = f.display().to_string();
        if !name.ends_with(ext) {
            continue;
        }
        if let Ok(bytes) = std::fs::read(&f)
            && bytes.len() <= 256 * 1024
        {
            out.push(Seed { kind, name, bytes });
        }
    }
}

fn seeds() -> Vec<Seed> {
    let mut out = Vec::new();
    for name in seed::dialects::builtin_names() {
        for (file, text) in seed::dialects::builtin_files(&name) {
            out.push(Seed {
                kind: Kind::Sequence,
                name: file.to_string(),
                bytes: text.as_bytes().to_vec(),
            });
        }
    }
    for ext in [".json", ".yaml", ".mmd", ".toml"] {
        seeds_in("sequences", ext, Kind::Sequence, &mut out);
    }
    seeds_in(
        "tests/fixtures/transcripts",
        ".jsonl",
        Kind::Transcript,
        &mut out,
    );
    seeds_in(
        "../shared/fixtures/claude-code/hooks",
        ".json",
        Kind::Payload,
        &mut out,
    );
    seeds_in(
        "../shared/fixtures/claude-code/transcripts",
        ".jsonl",
        Kind::Transcript,
        &mut out,
    );
    let demo: String = seed::demo::bundled()
        .iter()
        .take(200)
        .map(|r| serde_json::to_string(r).unwrap_or_default() + "\n")
        .collect();
    out.push(Seed {
        kind: Kind::Records,
        name: "demo.jsonl".into(),
        bytes: demo.into_bytes(),
    });
    out.push(Seed {
        kind: Kind::Payload,
        name: "pre.json".into(),
        bytes: br#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","n":[1,2.5,{"k":null}]},"cwd":"/p","agent_id":"a"}"#.to_vec(),
    });
    out.push(Seed {
        kind: Kind::Config,
        name: ".seed.toml".into(),
        bytes: b"sequence = [\"a\", \"b\"]\nfail = \"closed\"\nhook_budget_ms = 300\n[stop]\nmax_blocks = 2\n[overrides.a]\nenforcement = \"observe\"\n".to_vec(),
    });
    out
}

/// One change to a byte string.
#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Repeat(usize, usize, usize),
    Truncate(usize),
}

/// Bytes that mean something to one of the parsers.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b"\\",
    b"\\u",
    b"\\ud800",
    b":",
    b",",
    b"\n",
    b"\r",
    b"-->",
    b"|",
    b"1e400",
    b"-0",
    b"null",
    b"\xff",
    b"\xc3",
    b"\x00",
    b"\x1b[2J",
    b"\xe2\x80\xae",
    b"#",
    b"state ",
    b"[*]",
    b"---",
    b"- ",
    b"&a",
    b"*a",
    b"<<",
    b"=",
    b"'''",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), prop::sample::select(TOKENS))
            .prop_map(|(i, t)| Mutation::Insert(i, t.to_vec())),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<usize>(), 1usize..64, 1usize..64).prop_map(|(i, n, k)| Mutation::Repeat(i, n, k)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let at = |i: usize, len: usize| if len == 0 { 0 } else { i % (len + 1) };
    match m {
        Mutation::Flip(i, b) if !bytes.is_empty() => {
            let i = i % bytes.len();
            bytes[i] ^= b | 1;
        }
        Mutation::Flip(..) => {}
        Mutation::Insert(i, t) => {
            let i = at(*i, bytes.len());
            bytes.splice(i..i, t.iter().copied());
        }
        Mutation::Delete(i, n) => {
            let i = at(*i, bytes.len());
            let end = (i + n).min(bytes.len());
            bytes.drain(i..end);
        }
        Mutation::Repeat(i, n, k) => {
            let i = at(*i, bytes.len());
            let end = (i + n).min(bytes.len());
            let slice = bytes[i..end].to_vec();
            for _ in 0..*k {
                bytes.splice(end..end, slice.iter().copied());
            }
        }
        Mutation::Truncate(i) => {
            let i = at(*i, bytes.len());
            bytes.truncate(i);
        }
    }
}

/// Feed `bytes` to the parser of `kind`, and to the hook's payload parser whatever the kind
/// (it reads anything on stdin). A panic fails the case.
fn feed(kind: Kind, name: &str, bytes: &[u8]) {
    let _ = seed::protocol::HookInput::parse(bytes.to_vec(), None);
    let text = String::from_utf8_lossy(bytes);
    match kind {
        Kind::Payload => {
            if let Ok(h) = seed::protocol::HookInput::parse(bytes.to_vec(), Some("PreToolUse")) {
                let _ = seed::protocol::input::normalize(&h, &h.tool_input, "");
            }
        }
        Kind::Records => {
            let _ = seed::store::record::parse_records(bytes);
        }
        Kind::Sequence => {
            let _ = seed::dialects::load_text(name, &text, &|_| None);
        }
        Kind::Transcript => {
            let _ = seed::protocol::transcript::parse_transcript_bytes(bytes);
        }
        Kind::Config => {
            let _ = seed::config::parse_file(Path::new(name), &text);
        }
    }
}

fn cases() -> u32 {
    std::env::var("SEED_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000)
}

fn run(cases: u32) {
    let all = seeds();
    assert!(!all.is_empty());
    let kinds = |k: Kind| all.iter().filter(|s| s.kind == k).count();
    println!(
        "fuzz: {} seeds ({} payloads, {} records, {} sequences, {} transcripts, {} configs), {cases} cases",
        all.len(),
        kinds(Kind::Payload),
        kinds(Kind::Records),
        kinds(Kind::Sequence),
        kinds(Kind::Transcript),
        kinds(Kind::Config)
    );
    let n = all.len();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let strategy = (0..n, prop::collection::vec(mutation(), 1..8));
    let result = runner.run(&strategy, |(i, muts)| {
        let s = &all[i];
        let mut bytes = s.bytes.clone();
        for m in &muts {
            apply(&mut bytes, m);
        }
        feed(s.kind, &s.name, &bytes);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn every_parser_survives_mutated_real_inputs() {
    run(cases());
}

#[test]
#[ignore = "long run: SEED_FUZZ_CASES=200000 cargo test --release --test fuzz -- --ignored"]
fn every_parser_survives_a_long_run() {
    run(cases().max(10_000));
}
