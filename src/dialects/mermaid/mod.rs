//! The Mermaid `stateDiagram-v2` dialect (seed 004): a hand-written line parser of the subset
//! real files use, the transition-label mini-language `trigger [guard] / action`, and a TOML
//! manifest that nests diagrams and binds hook events, tools, skills and `/commands` to states.
//!
//! `lexer` → `parser` (syntax tree with positions) → `tree` (states) → `edges` (transitions)
//! → `lints`; `manifest` drives the same assembly from a `.toml` file.

pub mod annotations;
pub mod assembly;
pub mod ast;
pub mod bindings;
pub mod edges;
pub mod fork_regions;
pub mod guard_expr;
pub mod label;
pub mod lexer;
pub mod lints;
pub mod manifest;
mod manifest_toml;
pub mod parser;
pub mod returns;
pub mod scopes;
pub mod stmt;
pub mod tree;

use std::path::Path;

use self::assembly::Assembly;
use super::{LoadError, Loaded};
use crate::engine::Machine;
use crate::engine::ir::{Band, Chart, Span, StateId};
use crate::engine::lint::Lint;

/// Parse a diagram, with errors at `file:line:col`.
pub fn parse_file(file: &str, text: &str) -> Result<ast::Diagram, LoadError> {
    parser::parse(text).map_err(|e| LoadError::at(file, e.pos.line, e.pos.col, e.message))
}

/// Load one `.mmd` file as a sequence of its own (default settings, no bindings).
pub fn load_diagram(file: &str, text: &str) -> Result<Loaded, LoadError> {
    let d = parse_file(file, text)?;
    let stem = Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("diagram");
    let name = d.title.clone().unwrap_or_else(|| stem.to_string());
    let mut a = Assembly::new(&name, true);
    a.insert(&d, file, StateId::ROOT)?;
    a.compile_edges()?;
    let (chart, warnings) = a.finish(&[])?;
    Ok(Loaded {
        chart,
        source: file.to_string(),
        warnings,
    })
}

/// A manifest's band: name, range in percent, and where it is written.
pub type BandRange = (String, f64, f64, Option<Span>);

impl Assembly {
    /// Pin `band:` annotations (ranges from `ranges`, else an even split in order of
    /// appearance), build the chart, and run the Mermaid lints.
    pub fn finish(mut self, ranges: &[BandRange]) -> Result<(Chart, Vec<Lint>), LoadError> {
        let n = self.bands.len().max(1) as f64;
        let bands = std::mem::take(&mut self.bands);
        for (i, (name, members)) in bands.into_iter().enumerate() {
            let (lo, hi, span) = ranges
                .iter()
                .find(|(r, ..)| *r == name)
                .map(|(_, lo, hi, span)| (*lo, *hi, *span))
                .unwrap_or((100.0 * i as f64 / n, 100.0 * (i + 1) as f64 / n, None));
            let (top, nested): (Vec<StateId>, Vec<StateId>) = members
                .into_iter()
                .partition(|s| self.b.state(*s).parent == Some(StateId::ROOT));
            for s in nested {
                let key = self.key(s);
                self.lints.push(Lint::warning(
                    "band-nested",
                    format!("`{key}` is not a top-level state: its `band: {name}` is ignored"),
                    self.b.state(s).span,
                ));
            }
            self.b.add_band(Band {
                name,
                lo,
                hi,
                states: top,
                span,
            });
        }
        // Listed in bar order, whatever order the manifest's table had.
        self.b
            .chart_mut()
            .bands
            .sort_by(|a, b| a.lo.total_cmp(&b.lo));
        let file = self
            .diagrams
            .first()
            .map(|d| d.file.clone())
            .unwrap_or_default();
        if !self.standalone {
            self.b.chart_mut().files = self.diagrams.iter().map(|d| d.file.clone()).collect();
        }
        let chart = self
            .b
            .finish()
            .map_err(|e| LoadError::at(&file, 0, 0, e.to_string()))?;
        let machine = Machine::new(chart);
        let mut lints = self.lints;
        lints.extend(lints::eventless_loops(&machine));
        Ok((machine.chart, lints))
    }
}
