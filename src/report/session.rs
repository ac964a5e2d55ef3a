//! Which session a face shows, said the same way everywhere: its id, the project it ran in and
//! its age, and a warning when that project is not the one the user is in.

/// What is known of the session shown. Ages are seconds before now (the caller reads the
/// clock: renderings stay pure).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shown<'a> {
    pub id: &'a str,
    /// The directory the session ran in.
    pub project: Option<&'a str>,
    pub started_ago: Option<i64>,
    pub last_event_ago: Option<i64>,
    /// The directory the user is in, when the session did not run there (nor around it).
    pub elsewhere_than: Option<&'a str>,
}

/// `4 min ago`, `2 h ago`, `3 days ago`: coarse on purpose, it only has to tell today's
/// session from last week's.
pub fn ago(secs: i64) -> String {
    let s = secs.max(0);
    match s {
        0..10 => "just now".to_string(),
        10..120 => format!("{s} s ago"),
        120..7200 => format!("{} min ago", s / 60),
        7200..172_800 => format!("{} h ago", s / 3600),
        _ => format!("{} days ago", s / 86_400),
    }
}

/// `session 3f2a… · project /home/u/app · started 2 h ago · last event 4 min ago`.
pub fn line(s: &Shown) -> String {
    let mut parts = vec![format!("session {}", s.id)];
    parts.push(format!(
        "project {}",
        s.project
            .unwrap_or("unknown (the session never said where it ran)")
    ));
    if let Some(a) = s.started_ago {
        parts.push(format!("started {}", ago(a)));
    }
    if let Some(a) = s.last_event_ago {
        parts.push(format!("last event {}", ago(a)));
    }
    parts.join(" · ")
}

/// The warning for a session of another project than the user's directory.
pub fn elsewhere(project: &str, here: &str) -> String {
    format!("this session ran in {project}, not in this directory ({here})")
}

/// [`line`], then the warning when there is one, each on its own line.
pub fn header(s: &Shown) -> String {
    match (s.elsewhere_than, s.project) {
        (Some(here), Some(project)) => {
            format!("{}\nwarning: {}", line(s), elsewhere(project, here))
        }
        _ => line(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_as_a_person_says_them() {
        for (secs, said) in [
            (-5, "just now"),
            (0, "just now"),
            (42, "42 s ago"),
            (119, "119 s ago"),
            (240, "4 min ago"),
            (7199, "119 min ago"),
            (7200, "2 h ago"),
            (3 * 86_400, "3 days ago"),
            (i64::MAX, format!("{} days ago", i64::MAX / 86_400).leak()),
        ] {
            assert_eq!(ago(secs), said, "{secs}");
        }
    }

    #[test]
    fn the_header_names_the_session_its_project_and_age_and_warns_when_elsewhere() {
        let mut s = Shown {
            id: "3f2a",
            project: Some("/home/u/app"),
            started_ago: Some(7300),
            last_event_ago: Some(240),
            elsewhere_than: None,
        };
        assert_eq!(
            header(&s),
            "session 3f2a · project /home/u/app · started 2 h ago · last event 4 min ago"
        );
        s.elsewhere_than = Some("/home/u/other");
        assert_eq!(
            header(&s).lines().nth(1),
            Some("warning: this session ran in /home/u/app, not in this directory (/home/u/other)")
        );
        let unknown = Shown {
            id: "x",
            ..Shown::default()
        };
        assert_eq!(
            line(&unknown),
            "session x · project unknown (the session never said where it ran)"
        );
    }
}
