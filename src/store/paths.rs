//! Where seed keeps its state (how files there are opened is `safe_fs`'s job).
//!
//! ```text
//! <state>/                         $SEED_HOME, else $HEAVEN_DATA_DIR/seed, else ~/.local/state/seed
//!   sessions/<session>/log.jsonl   append-only records, one line per hook event
//!   sessions/<session>/session.json            hook bookkeeping (records, agents, injection)
//!   sessions/<session>/snapshots/<seq>.json    engine snapshot per sequence (a cache of the log)
//!   sessions/<session>/charts/<seq>.json       the compiled chart that snapshot belongs to
//!   errors.jsonl                   failures that could not be tied to a session
//!   allowed_tools.seed, state.log  seed 000 compatibility files
//! ```

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

pub use super::safe_fs::{
    check_symlink, ensure_dir, ensure_dir_in, open_append, open_read, open_regular, prepare_state,
    read_at_most, read_bounded, read_bounded_checked, read_rotating, verify_in, write_atomic,
    write_rotating,
};

/// Resolve the state directory from an environment lookup (no file system access).
pub fn state_dir_with(env: &dyn Fn(&str) -> Option<OsString>) -> io::Result<PathBuf> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(p) = set("SEED_HOME") {
        return Ok(p);
    }
    if let Some(p) = set("HEAVEN_DATA_DIR") {
        return Ok(p.join("seed"));
    }
    // XDG on Linux and macOS alike (what terminal users expect); Known Folders on Windows.
    if let Some(p) = set("XDG_STATE_HOME") {
        return Ok(p.join("seed"));
    }
    use etcetera::BaseStrategy;
    let base = etcetera::choose_base_strategy()
        .map_err(|e| io::Error::other(format!("no home directory for the state dir: {e}")))?;
    Ok(base
        .state_dir()
        .unwrap_or_else(|| base.data_dir())
        .join("seed"))
}

/// The state directory from the process environment.
pub fn state_dir() -> io::Result<PathBuf> {
    state_dir_with(&|k| std::env::var_os(k))
}

pub fn sessions_dir(state: &Path) -> PathBuf {
    state.join("sessions")
}

/// A name as a single safe path component (`served:<id>` and worse stay inside): at most
/// 128 characters of `[A-Za-z0-9._-]`, other characters as `_`.
pub fn safe_component(id: &str) -> String {
    let mut s: String = id
        .chars()
        .take(MAX_COMPONENT)
        .map(|c| if safe_char(c) { c } else { '_' })
        .collect();
    if s.is_empty() || s.chars().all(|c| c == '.') {
        s = format!("_{s}");
    }
    s
}

const MAX_COMPONENT: usize = 128;

fn safe_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// FNV-1a, 64 bits: a short, stable tag for names (not a defence against chosen collisions).
pub fn fnv64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// FNV-1a, 128 bits: the tag that stands for a session id too long to spell out. Distinct ids
/// collide with probability ~n²/2¹²⁹ (not a defence against collisions chosen on purpose;
/// Claude Code picks the ids).
fn fnv128(bytes: &[u8]) -> u128 {
    let mut h: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    for b in bytes {
        h ^= u128::from(*b);
        h = h.wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b);
    }
    h
}

/// A session id as its directory name, one-to-one, so two sessions never share a directory.
/// Three disjoint forms, told apart by their first characters:
/// - verbatim: an id of `[A-Za-z0-9.-]` (no `_`), not starting with `.`, at most 128 bytes
///   (Claude Code's UUIDs);
/// - `_` + the id escaped: `_` as `__`, any byte outside `[A-Za-z0-9.-]` as `_xx` (lowercase
///   hex). Decoding is unambiguous, and verbatim names never contain `_`;
/// - `__g` + a readable head + a 128-bit hash, when the escaped form is longer than 128 bytes
///   (escaping never writes `_g`, so no escaped name starts like this).
///
/// Every result is a single path component of `[A-Za-z0-9._-]`, at most 128 bytes, never `.`,
/// `..` or hidden.
pub fn session_component(id: &str) -> String {
    let verbatim = !id.is_empty()
        && id.len() <= MAX_COMPONENT
        && !id.starts_with('.')
        && id.bytes().all(|b| b != b'_' && safe_char(char::from(b)));
    if verbatim {
        return id.to_string();
    }
    let mut out = String::with_capacity(id.len() + 1);
    out.push('_');
    for b in id.bytes() {
        match b {
            b'_' => out.push_str("__"),
            b if b.is_ascii() && safe_char(char::from(b)) => out.push(char::from(b)),
            b => out.push_str(&format!("_{b:02x}")),
        }
    }
    if out.len() <= MAX_COMPONENT {
        return out;
    }
    let tag = format!("-{:032x}", fnv128(id.as_bytes()));
    // The head only helps a reader; it is cut on a character boundary (all ASCII here).
    let room = MAX_COMPONENT - 3 - tag.len();
    format!("__g{}{tag}", &out[1..1 + room])
}

pub fn session_dir(state: &Path, session: &str) -> PathBuf {
    sessions_dir(state).join(session_component(session))
}

pub fn session_log(state: &Path, session: &str) -> PathBuf {
    session_dir(state, session).join("log.jsonl")
}

pub fn session_meta(state: &Path, session: &str) -> PathBuf {
    session_dir(state, session).join("session.json")
}

pub fn snapshots_dir(state: &Path, session: &str) -> PathBuf {
    session_dir(state, session).join("snapshots")
}

pub fn charts_dir(state: &Path, session: &str) -> PathBuf {
    session_dir(state, session).join("charts")
}

pub fn snapshot_path(state: &Path, session: &str, sequence: &str) -> PathBuf {
    snapshots_dir(state, session).join(format!("{}.json", safe_component(sequence)))
}

pub fn chart_path(state: &Path, session: &str, sequence: &str) -> PathBuf {
    charts_dir(state, session).join(format!("{}.json", safe_component(sequence)))
}

/// Compiled charts shared by every session (`hook::cache`).
pub fn chart_cache_dir(state: &Path) -> PathBuf {
    state.join("cache").join("charts")
}

pub fn errors_log(state: &Path) -> PathBuf {
    state.join("errors.jsonl")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_dir_precedence() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let e = env(&[("SEED_HOME", "/a"), ("HEAVEN_DATA_DIR", "/h")]);
        assert_eq!(state_dir_with(&e).unwrap(), PathBuf::from("/a"));
        let e = env(&[("SEED_HOME", ""), ("HEAVEN_DATA_DIR", "/h")]);
        assert_eq!(state_dir_with(&e).unwrap(), PathBuf::from("/h/seed"));
        let e = env(&[("XDG_STATE_HOME", "/x")]);
        assert_eq!(state_dir_with(&e).unwrap(), PathBuf::from("/x/seed"));
    }

    #[test]
    fn components_are_safe() {
        assert_eq!(safe_component("served:abc/..x"), "served_abc_..x");
        assert_eq!(safe_component(".."), "_..");
        assert_eq!(safe_component(""), "_");
    }

    #[test]
    fn distinct_session_ids_get_distinct_directories() {
        let ids = [
            "a:b",
            "a/b",
            "a_b",
            "..",
            "",
            ".",
            "_",
            &"x".repeat(128),
            &format!("{}1", "x".repeat(128)),
            &format!("{}2", "x".repeat(128)),
            "0b6f1c2e-0000-4000-8000-000000000001",
            "served:abc/..x",
            "café",
            "cafe\u{301}",
        ];
        let dirs: Vec<String> = ids.iter().map(|i| session_component(i)).collect();
        let mut unique = dirs.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "{dirs:?}");
        for d in &dirs {
            assert!(d.len() <= 128 && d.chars().all(safe_char), "{d}");
            assert!(!d.starts_with('.'), "{d}");
        }
        // Plain ids (what Claude Code sends) are their own directory name.
        assert_eq!(dirs[10], ids[10]);
        assert_eq!(dirs[0], "_a_3ab");
        assert_eq!(dirs[2], "_a__b");
        assert_eq!(dirs[3], "_..");
        assert_eq!(dirs[4], "_");
    }

    /// What broke the old mapping: a safe id spelling another id's escaped or hashed name.
    #[test]
    fn a_safe_id_cannot_spell_another_ids_name() {
        for other in ["a/b", "a:b", "..", "", &"é".repeat(100)] {
            let name = session_component(other);
            assert_ne!(session_component(&name), name, "{other:?} -> {name}");
        }
        let old_style = format!("a_b-{:016x}", fnv64(b"a/b"));
        assert_ne!(session_component(&old_style), session_component("a/b"));
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;

        /// Ids built to look like names: safe characters, `_`, escapes, hash markers, dots.
        fn id() -> impl Strategy<Value = String> {
            prop_oneof![
                "[a-z0-9._/-]{0,8}",
                "(_|__|_g|_2f|[.]|[.][.]|a|/|é|-){0,12}",
                "[a-f0-9_.-]{120,140}",
                ".{0,200}",
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4000))]

            #[test]
            fn distinct_ids_get_distinct_safe_names(a in id(), b in id()) {
                let (na, nb) = (session_component(&a), session_component(&b));
                for n in [&na, &nb] {
                    prop_assert!(!n.is_empty() && n.len() <= MAX_COMPONENT, "{n}");
                    prop_assert!(n.chars().all(safe_char), "{n}");
                    prop_assert!(n != "." && n != ".." && !n.starts_with('.'), "{n}");
                    prop_assert_eq!(Path::new(n.as_str()).components().count(), 1);
                }
                if a != b {
                    prop_assert_ne!(na, nb, "{:?} and {:?}", a, b);
                }
            }

            /// A safe id that spells another id's name never maps to that name.
            #[test]
            fn a_name_used_as_an_id_is_not_that_name_again(a in id()) {
                let n = session_component(&a);
                if n != a {
                    prop_assert_ne!(session_component(&n), n);
                }
            }
        }
    }
}
