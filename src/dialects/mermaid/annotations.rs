//! Annotations in state labels and notes: after the display name, rows such as `tool: X`,
//! `allow: a, b`, `deny: a, b`, `band: name`, `weight: n`, `recovery: text`, or a lone
//! tool-shaped token (the activity).

use super::label::event_shaped;
use crate::engine::pattern::Pattern;

/// Annotations carried by the lines of a state label after the first (the display name).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Annotations {
    pub activity: Option<(Pattern, String)>,
    pub allow: Vec<Pattern>,
    pub deny: Vec<Pattern>,
    pub band: Option<String>,
    pub weight: Option<f64>,
    pub recovery: Option<String>,
    pub notes: Vec<String>,
}

/// Split a label into lines at literal `\n` and `<br>` (any case, `<br/>`, `<br />`).
pub fn split_rows(text: &str) -> Vec<String> {
    let mut s = text.replace("\\n", "\n");
    for br in ["<br />", "<br/>", "<br>", "<BR />", "<BR/>", "<BR>"] {
        s = s.replace(br, "\n");
    }
    s.split('\n').map(|l| l.trim().to_string()).collect()
}

/// Read one annotation row into `out`. Returns an error message for a malformed annotation
/// (an unknown `key:` row is a plain note). `bare_tokens`: a lone tool-shaped row is the
/// activity (state labels; not notes).
pub fn annotate(row: &str, out: &mut Annotations, bare_tokens: bool) -> Result<(), String> {
    let row = row.trim();
    if row.is_empty() {
        return Ok(());
    }
    if let Some((key, value)) = row.split_once(':') {
        let value = value.trim();
        let patterns = |v: &str| -> Result<Vec<Pattern>, String> {
            v.split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| Pattern::parse(p).map_err(|e| e.to_string()))
                .collect()
        };
        match key.trim() {
            "tool" | "activity" => {
                let p = Pattern::parse(value).map_err(|e| e.to_string())?;
                out.activity = Some((p, value.to_string()));
                return Ok(());
            }
            "allow" => {
                out.allow.extend(patterns(value)?);
                return Ok(());
            }
            "deny" => {
                out.deny.extend(patterns(value)?);
                return Ok(());
            }
            "band" => {
                out.band = Some(value.to_string());
                return Ok(());
            }
            "weight" => {
                let w: f64 = value
                    .parse()
                    .map_err(|_| format!("`weight: {value}` must be a number"))?;
                if !(0.0..=1000.0).contains(&w) {
                    return Err(format!("`weight: {value}` must be between 0 and 1000"));
                }
                out.weight = Some(w);
                return Ok(());
            }
            "recovery" => {
                out.recovery = Some(value.to_string());
                return Ok(());
            }
            _ => {}
        }
    }
    if bare_tokens
        && !row.contains(char::is_whitespace)
        && let Some(p) = event_shaped(row)
        && let Ok(pat) = Pattern::parse(&p)
    {
        out.activity = Some((pat, row.to_string()));
        return Ok(());
    }
    out.notes.push(row.to_string());
    Ok(())
}
