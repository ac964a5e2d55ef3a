//! How a hook fails when seed itself cannot answer: one precedence rule for every source,
//! written once. The first that says wins:
//!
//! 1. `--fail` (the hook command's flag),
//! 2. `SEED_FAIL`,
//! 3. the project's `.seed.toml` `fail`,
//! 4. the user's `config.toml` `fail`,
//! 5. the sequences being stepped: closed when any of them says `fail = "closed"`,
//! 6. open.
//!
//! A source that cannot be read yet (no configuration loaded, no chart) is `None` and the
//! rule falls to the next; a broken file's `fail` line still counts when it can be read.

use crate::engine::ir::FailMode;

/// What each source says, `None` when it says nothing (or is not known yet).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FailSources {
    pub flag: Option<FailMode>,
    pub env: Option<FailMode>,
    pub project: Option<FailMode>,
    pub user: Option<FailMode>,
    /// The sequences' own settings, combined: closed when any is closed.
    pub sequences: Option<FailMode>,
}

impl FailSources {
    /// The flag and the variable as given, before any file is read. A value that is not a
    /// fail mode says nothing here (the configuration refuses it with its own error).
    pub fn early(flag: Option<&str>, env: Option<&str>) -> Self {
        Self {
            flag: flag.and_then(parse),
            env: env.and_then(parse),
            ..Self::default()
        }
    }

    /// What the settings above the sequences say (sources 1–4): the configuration's `fail`.
    pub fn configured(&self) -> Option<FailMode> {
        self.flag.or(self.env).or(self.project).or(self.user)
    }

    /// The fail mode in force.
    pub fn resolve(&self) -> FailMode {
        self.configured().or(self.sequences).unwrap_or_default()
    }

    /// These sources with the configuration's result in place of sources 1–4.
    pub fn with_configured(self, configured: Option<FailMode>) -> Self {
        match configured {
            Some(_) => Self {
                flag: configured,
                env: None,
                project: None,
                user: None,
                sequences: self.sequences,
            },
            None => self,
        }
    }

    /// These sources with the sequences' own settings: closed when any is closed.
    pub fn with_sequences(self, modes: impl IntoIterator<Item = FailMode>) -> Self {
        let closed = modes.into_iter().any(|m| m == FailMode::Closed);
        Self {
            sequences: closed.then_some(FailMode::Closed),
            ..self
        }
    }
}

fn parse(v: &str) -> Option<FailMode> {
    match v.trim() {
        "closed" => Some(FailMode::Closed),
        "open" => Some(FailMode::Open),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use FailMode::{Closed, Open};

    fn all(flag: FailMode, env: FailMode, project: FailMode, user: FailMode) -> FailSources {
        FailSources {
            flag: Some(flag),
            env: Some(env),
            project: Some(project),
            user: Some(user),
            sequences: Some(Closed),
        }
    }

    #[test]
    fn the_flag_beats_the_variable_beats_the_project_beats_the_user() {
        assert_eq!(all(Open, Closed, Closed, Closed).resolve(), Open);
        let no_flag = FailSources {
            flag: None,
            ..all(Open, Open, Closed, Closed)
        };
        assert_eq!(no_flag.resolve(), Open);
        let files_only = FailSources {
            env: None,
            ..no_flag
        };
        assert_eq!(files_only.resolve(), Closed, "project's closed");
        let user_only = FailSources {
            project: None,
            user: Some(Open),
            ..files_only
        };
        assert_eq!(
            user_only.resolve(),
            Open,
            "user's open beats a closed sequence"
        );
    }

    #[test]
    fn a_sequence_decides_only_when_no_setting_does() {
        let seq = FailSources::default().with_sequences([Open, Closed]);
        assert_eq!(seq.resolve(), Closed);
        assert_eq!(seq.configured(), None);
        assert_eq!(
            FailSources::default().with_sequences([Open]).resolve(),
            Open
        );
        assert_eq!(FailSources::default().resolve(), Open, "nothing said: open");
        let configured = seq.with_configured(Some(Open));
        assert_eq!(configured.resolve(), Open);
        assert_eq!(seq.with_configured(None).resolve(), Closed);
    }

    #[test]
    fn early_reads_only_what_parses() {
        let s = FailSources::early(Some(" closed "), Some("open"));
        assert_eq!((s.resolve(), s.configured()), (Closed, Some(Closed)));
        let s = FailSources::early(Some("shut"), Some("closed"));
        assert_eq!(s.resolve(), Closed, "an unknown flag value says nothing");
        assert_eq!(FailSources::early(None, Some("")).resolve(), Open);
    }
}
