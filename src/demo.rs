//! The bundled demo: a session of `compound_intelligence` recorded by the real hook from a
//! script of hook payloads and deep-state file changes (`assets/demo/script.jsonl`), embedded
//! with its log (`assets/demo/session.jsonl`) so `seed demo` works from any directory.
//!
//! [`record`] regenerates the log from the script; a test fails when the bundled log is stale.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::hook::{self, Invocation};
use crate::store::record::Record;

pub const SCRIPT: &str = include_str!("../assets/demo/script.jsonl");
pub const SESSION_LOG: &str = include_str!("../assets/demo/session.jsonl");
pub const SEQUENCE: &str = "compound_intelligence";
pub const SESSION_ID: &str = "d3m0d3m0-5eed-4000-8000-000000000001";
/// The recording's clock starts here; each step's `at` (seconds) is added to it.
pub const START: &str = "2026-11-22T09:00:00Z";

/// One line of the script: a hook payload, or a deep-state file written before the next one.
#[derive(Debug, Deserialize)]
struct Step {
    at: f64,
    #[serde(default)]
    payload: Option<Value>,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    content: Option<Value>,
}

/// Where a demo lives: its state directory (`SEED_HOME`) and deep-state directory
/// (`HEAVEN_DATA_DIR`).
#[derive(Debug, Clone)]
pub struct DemoDirs {
    pub seed_home: PathBuf,
    pub heaven: PathBuf,
}

impl DemoDirs {
    pub fn under(root: &Path) -> DemoDirs {
        DemoDirs {
            seed_home: root.join("seed"),
            heaven: root.join("heaven"),
        }
    }

    pub fn log(&self) -> PathBuf {
        crate::store::paths::session_log(&self.seed_home, SESSION_ID)
    }
}

/// The directory the demo session ran in (its first payload's `cwd`).
pub fn project() -> Option<String> {
    steps()
        .ok()?
        .into_iter()
        .find_map(|s| s.payload?.get("cwd")?.as_str().map(String::from))
}

fn steps() -> Result<Vec<Step>, String> {
    SCRIPT
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| format!("assets/demo/script.jsonl:{}: {e}", i + 1))
        })
        .collect()
}

fn write_file(heaven: &Path, rel: &str, content: &Value) -> Result<(), String> {
    if rel.contains("..") || rel.starts_with('/') {
        return Err(format!("demo script writes outside its directory: {rel}"));
    }
    let path = heaven.join(rel);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(content).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Write the deep-state files as they stand at the end of the script (what a live reader sees).
pub fn prepare_files(dirs: &DemoDirs) -> Result<(), String> {
    for s in steps()? {
        if let (Some(f), Some(c)) = (&s.file, &s.content) {
            write_file(&dirs.heaven, f, c)?;
        }
    }
    Ok(())
}

/// A Claude Code configuration of the demo's own, with every MCP server its sequence calls
/// (the demo's user has set them up), so its texts are the same on every machine.
fn claude_config(dirs: &DemoDirs) -> Result<PathBuf, String> {
    let dir = dirs.seed_home.join("claude-config");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let chart = crate::dialects::builtin(SEQUENCE)
        .ok_or_else(|| format!("no built-in sequence {SEQUENCE}"))?
        .map_err(|e| e.to_string())?
        .chart;
    let servers: serde_json::Map<String, Value> = crate::engine::Machine::new(chart)
        .server_needs()
        .iter()
        .filter_map(|n| n.server.clone())
        .map(|s| (s, serde_json::json!({})))
        .collect();
    let text = serde_json::json!({ "mcpServers": servers }).to_string();
    let path = dir.join(".claude.json");
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(dir)
}

/// Run the script through the real hook (in-process, isolated environment) and return the
/// records it logged, with the script's clock in place of the wall clock.
pub fn record(dirs: &DemoDirs) -> Result<Vec<Record>, String> {
    let steps = steps()?;
    let seed_home = dirs.seed_home.display().to_string();
    let heaven = dirs.heaven.display().to_string();
    let nowhere = dirs.seed_home.join("no-user-config").display().to_string();
    let claude = claude_config(dirs)?.display().to_string();
    let env = move |k: &str| -> Option<String> {
        match k {
            "SEED_HOME" => Some(seed_home.clone()),
            "CLAUDE_CONFIG_DIR" => Some(claude.clone()),
            "HEAVEN_DATA_DIR" => Some(heaven.clone()),
            "SEED_SEQUENCE" => Some(SEQUENCE.into()),
            "SEED_CONFIG_DIR" | "HOME" => Some(nowhere.clone()),
            _ => None,
        }
    };
    let mut times = Vec::new();
    for s in &steps {
        if let (Some(f), Some(c)) = (&s.file, &s.content) {
            write_file(&dirs.heaven, f, c)?;
        }
        let Some(p) = &s.payload else { continue };
        let bytes = serde_json::to_vec(p).map_err(|e| e.to_string())?;
        let mut stdin: &[u8] = &bytes;
        let out = hook::run(Invocation {
            sequence: None,
            enforcement: None,
            fail: None,
            event: None,
            stdin: &mut stdin,
            env: &env,
            cwd: None,
            deadline: None,
        });
        if let Some(e) = out.stderr {
            return Err(format!("hook failed on a demo payload: {e}"));
        }
        times.push(s.at);
    }
    let bytes = std::fs::read(dirs.log()).map_err(|e| format!("{}: {e}", dirs.log().display()))?;
    let (mut records, bad) = crate::store::record::parse_records(&bytes);
    if bad > 0 || records.len() != times.len() {
        return Err(format!(
            "expected {} records, the hook logged {} ({bad} malformed)",
            times.len(),
            records.len()
        ));
    }
    let start: jiff::Timestamp = START.parse().map_err(|e| format!("{e}"))?;
    for (r, at) in records.iter_mut().zip(times) {
        let ts = start
            .checked_add(jiff::SignedDuration::from_millis(
                (at * 1000.0).round() as i64
            ))
            .map_err(|e| e.to_string())?;
        r.ts = format!("{ts:.3}");
    }
    Ok(records)
}

/// The bundled log as records.
pub fn bundled() -> Vec<Record> {
    crate::store::record::parse_records(SESSION_LOG.as_bytes()).0
}

/// Records compared for staleness: everything but wall-clock costs.
pub fn comparable(records: &[Record]) -> Vec<Record> {
    records
        .iter()
        .cloned()
        .map(|mut r| {
            r.ms = None;
            r
        })
        .collect()
}

/// Render records as a log file.
pub fn to_log(records: &[Record]) -> String {
    let mut s = String::new();
    for r in records {
        if let Ok(line) = serde_json::to_string(r) {
            s.push_str(&line);
            s.push('\n');
        }
    }
    s
}

/// A documentation image rendered from the demo session (`assets/`, shown in the README).
pub struct DocImage {
    pub file: &'static str,
    /// Records shown (the frame after event `at`).
    pub at: usize,
    pub width: u16,
    pub height: u16,
    pub theme: &'static str,
    pub format: crate::export::Format,
}

pub const DOC_IMAGES: &[DocImage] = &[
    DocImage {
        file: "assets/demo-wide.png",
        at: 20,
        width: 120,
        height: 40,
        theme: "default",
        format: crate::export::Format::Png,
    },
    DocImage {
        file: "assets/demo-side-pane.png",
        at: 27,
        width: 40,
        height: 44,
        theme: "default",
        format: crate::export::Format::Png,
    },
    DocImage {
        file: "assets/demo-light.svg",
        at: 41,
        width: 110,
        height: 36,
        theme: "light",
        format: crate::export::Format::Svg,
    },
];

/// Render one documentation image exactly as `seed screenshot demo --at N …` would.
pub fn render_doc_image(img: &DocImage) -> Result<Vec<u8>, String> {
    let chart = crate::dialects::builtin(SEQUENCE)
        .ok_or("no built-in demo sequence")?
        .map_err(|e| e.to_string())?;
    let seqs = vec![crate::tui::Seq::new(
        crate::engine::Machine::new(chart.chart),
        true,
    )];
    let records = bundled();
    let info = crate::tui::SessionInfo {
        id: SESSION_ID.into(),
        source: "demo".into(),
        project: project(),
        started: records
            .first()
            .and_then(|r| crate::tui::model::parse_ts(&r.ts)),
    };
    let theme = crate::tui::Theme::load(img.theme, None).map_err(|e| e.to_string())?;
    let model = crate::replay::frame::replay_at(info, seqs, records, &theme.name, img.at);
    let buf = crate::replay::frame::draw(&model, &theme, img.width, img.height);
    crate::export::render(&buf, &theme, img.format).map_err(|e| e.to_string())
}
