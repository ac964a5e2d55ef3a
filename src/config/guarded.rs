//! Settings no file may push past what is safe. `emit_allow` answers a call with an explicit
//! `allow`, which skips Claude Code's own permission prompt: a project's `.seed.toml` comes
//! with whatever repository was cloned, so only the user's own file or `SEED_EMIT_ALLOW` may
//! turn it on. `lock_wait_ms` past Claude Code's hook timeout would let the call
//! through on a timeout, even with `fail = "closed"`, so it is capped below it.

use std::path::Path;
use std::time::Duration;

use super::{ConfigError, Parsed};

/// The longest a hook waits for the session log's lock (and for its failure record after):
/// below the 30 s timeout `seed install` pins, with room for the rest of the hook's work.
pub const MAX_LOCK_WAIT: Duration = Duration::from_secs(25);
/// How long a hook may work before it answers by its fail mode, unless configured.
pub const DEFAULT_HOOK_BUDGET: Duration = Duration::from_secs(10);
/// The longest hook budget: below the 30 s timeout `seed install` writes, with room to
/// answer.
pub const MAX_HOOK_BUDGET: Duration = Duration::from_secs(25);

/// A file that was read: where it is and what it says.
pub type Read<'a> = Option<(&'a Path, &'a Parsed)>;

/// `SEED_EMIT_ALLOW`-style yes/no.
pub fn parse_bool(what: &str, v: &str) -> Result<bool, ConfigError> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err(ConfigError::new(format!(
            "{what}: unknown value `{v}` (true or false)"
        ))),
    }
}

/// `emit_allow`: `SEED_EMIT_ALLOW`, else the user's file; a project file's `emit_allow` is
/// ignored with a warning.
pub fn emit_allow(
    env: Option<&str>,
    user: Read<'_>,
    project: Read<'_>,
    warnings: &mut Vec<String>,
) -> Result<bool, ConfigError> {
    if let Some((path, p)) = project.filter(|(_, p)| p.config.emit_allow.is_some()) {
        warnings.push(format!(
            "{}: `emit_allow` ignored: a project's file may not set it (an explicit allow skips your permission prompt); set it in your own config.toml or SEED_EMIT_ALLOW",
            p.place_of(path, "emit_allow")
        ));
    }
    if let Some(v) = env {
        return parse_bool("SEED_EMIT_ALLOW", v);
    }
    Ok(user.and_then(|(_, p)| p.config.emit_allow).unwrap_or(false))
}

/// `lock_wait_ms`: the project's file, else the user's, else the default; capped at
/// [`MAX_LOCK_WAIT`] with a warning naming the line.
pub fn lock_wait(
    user: Read<'_>,
    project: Read<'_>,
    default: Duration,
    warnings: &mut Vec<String>,
) -> Duration {
    let set = [project, user]
        .into_iter()
        .flatten()
        .find_map(|(path, p)| Some((p.place_of(path, "lock_wait_ms"), p.config.lock_wait_ms?)));
    capped(
        "lock_wait_ms",
        set,
        default,
        MAX_LOCK_WAIT,
        "waiting",
        warnings,
    )
}

/// `hook_budget_ms`: `SEED_HOOK_BUDGET_MS`, else the project's file, else the user's, else
/// the default; capped at `max` (below Claude Code's hook timeout) with a warning.
pub fn hook_budget(
    env: Option<&str>,
    user: Read<'_>,
    project: Read<'_>,
    default: Duration,
    max: Duration,
    warnings: &mut Vec<String>,
) -> Result<Duration, ConfigError> {
    let set = match env {
        Some(v) => Some((
            "SEED_HOOK_BUDGET_MS".to_string(),
            v.trim().parse().map_err(|_| {
                ConfigError::new(format!("SEED_HOOK_BUDGET_MS: not a number: `{v}`"))
            })?,
        )),
        None => [project, user].into_iter().flatten().find_map(|(path, p)| {
            Some((p.place_of(path, "hook_budget_ms"), p.config.hook_budget_ms?))
        }),
    };
    Ok(capped(
        "hook_budget_ms",
        set,
        default,
        max,
        "answering after",
        warnings,
    ))
}

/// A number of milliseconds set at `place` (or `default`), at most `max`: past it, a
/// timed-out hook would let the call through, so it is capped with a warning.
fn capped(
    key: &str,
    set: Option<(String, u64)>,
    default: Duration,
    max: Duration,
    instead: &str,
    warnings: &mut Vec<String>,
) -> Duration {
    let Some((place, ms)) = set else {
        return default;
    };
    let wanted = Duration::from_millis(ms);
    if wanted <= max {
        return wanted;
    }
    warnings.push(format!(
        "{place}: {key} = {ms} is past Claude Code's hook timeout (a timed-out hook lets the call through, even with fail = \"closed\"); {instead} {} ms",
        max.as_millis()
    ));
    max
}

#[cfg(test)]
mod tests {
    use super::super::{Flags, PROJECT_FILE, load};
    use super::*;

    /// A user file and a project file with these texts (`None`: no file).
    fn config(
        user: Option<&str>,
        project: Option<&str>,
        env: &[(&str, &str)],
    ) -> super::super::Config {
        let t = tempfile::tempdir().unwrap();
        let user_dir = t.path().join("user");
        let proj = t.path().join("proj");
        std::fs::create_dir_all(&user_dir).unwrap();
        std::fs::create_dir_all(&proj).unwrap();
        if let Some(u) = user {
            std::fs::write(user_dir.join("config.toml"), u).unwrap();
        }
        if let Some(p) = project {
            std::fs::write(proj.join(PROJECT_FILE), p).unwrap();
        }
        let mut vars: Vec<(String, String)> =
            vec![("SEED_CONFIG_DIR".into(), user_dir.display().to_string())];
        vars.extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let env = move |k: &str| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        load(&[proj], &env, &Flags::default()).unwrap()
    }

    /// Lowest first: default off, the user's file, `SEED_EMIT_ALLOW`; a project's file never.
    #[test]
    fn emit_allow_comes_from_the_user_or_the_environment_only() {
        assert!(!config(None, None, &[]).emit_allow);
        assert!(config(Some("emit_allow = true\n"), None, &[]).emit_allow);
        let c = config(None, Some("inject_every = 2\nemit_allow = true\n"), &[]);
        assert!(!c.emit_allow);
        let w = c.warning.unwrap_or_default();
        assert!(
            w.contains(".seed.toml:2:1: `emit_allow` ignored") && !w.contains('\n'),
            "{w}"
        );
        // The project's `false` is ignored too: the user's choice stands.
        let c = config(
            Some("emit_allow = true\n"),
            Some("emit_allow = false\n"),
            &[],
        );
        assert!(c.emit_allow);
        let c = config(
            Some("emit_allow = true\n"),
            None,
            &[("SEED_EMIT_ALLOW", "off")],
        );
        assert!(!c.emit_allow);
        assert!(config(None, None, &[("SEED_EMIT_ALLOW", "TRUE")]).emit_allow);
        assert!(parse_bool("SEED_EMIT_ALLOW", "2").is_err());
    }

    /// A wait past the hook's timeout is capped below it, with a warning naming the line; a
    /// wait under it is kept as written, the project's over the user's.
    #[test]
    fn lock_wait_is_capped_below_the_hook_timeout() {
        let default = crate::store::log::LOCK_WAIT;
        assert_eq!(config(None, None, &[]).lock_wait, default);
        assert!(default <= MAX_LOCK_WAIT);
        let c = config(Some("lock_wait_ms = 100\n"), None, &[]);
        assert_eq!((c.lock_wait, c.warning), (Duration::from_millis(100), None));
        let c = config(
            Some("lock_wait_ms = 100\n"),
            Some("lock_wait_ms = 200\n"),
            &[],
        );
        assert_eq!(c.lock_wait, Duration::from_millis(200));
        let c = config(None, Some("sequence = \"x\"\nlock_wait_ms = 60000\n"), &[]);
        assert_eq!(c.lock_wait, MAX_LOCK_WAIT);
        let w = c.warning.unwrap_or_default();
        assert!(
            w.contains(".seed.toml:2:1: lock_wait_ms = 60000 is past Claude Code's hook timeout")
                && w.ends_with("waiting 25000 ms"),
            "{w}"
        );
        let c = config(Some(&format!("lock_wait_ms = {}\n", u64::MAX)), None, &[]);
        assert_eq!(c.lock_wait, MAX_LOCK_WAIT);
    }
}
