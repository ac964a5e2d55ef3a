//! Secrets given as flags of known commands, where the flag means "password" only for that
//! command: `mysql -pPw` / `-p Pw`, `docker login -p Pw`, `sshpass -p Pw`, `redis-cli -a Pw`,
//! `openssl … -k Pw` / `-pass pass:Pw`, `curl -u user:pw`. The same flag of any other command
//! is something else (`ssh -p 22`, `docker run -p 8080:80`, `redis-cli -p 6379`), so only these
//! commands' own arguments are read, up to the end of the command (`;`, `|`, `&`, a newline).

/// How a flag carries the secret.
#[derive(Clone, Copy)]
enum Carries {
    /// The whole value, attached (`-pPw`) or as the next word (`-p Pw`).
    Value,
    /// The value, as the next word only (`-k Pw`: `-kfile` is another flag).
    Next,
    /// What follows `pass:` in the next word (`-pass pass:Pw`; `env:VAR` names no secret).
    PassPrefix,
    /// What follows the first `:` of `user:password`, attached, next or after `=`.
    AfterColon,
}

struct Known {
    names: &'static [&'static str],
    /// A word that must come before the flag (`docker login`).
    sub: Option<&'static str>,
    flags: &'static [(&'static str, Carries)],
    /// Runs another command, whose own flags begin at the first word that is not an option
    /// (`sshpass -p pw ssh -p 22 host`).
    wraps: bool,
}

const MYSQL: &[&str] = &[
    "mysql",
    "mysqldump",
    "mysqladmin",
    "mysqlimport",
    "mysqlshow",
    "mysqlcheck",
    "mysqlpump",
    "mariadb",
    "mariadb-dump",
    "mariadb-admin",
];

const KNOWN: &[Known] = &[
    Known {
        names: MYSQL,
        sub: None,
        flags: &[("-p", Carries::Value)],
        wraps: false,
    },
    Known {
        names: &["docker", "podman", "nerdctl"],
        sub: Some("login"),
        flags: &[("-p", Carries::Value)],
        wraps: false,
    },
    Known {
        names: &["sshpass"],
        sub: None,
        flags: &[("-p", Carries::Value)],
        wraps: true,
    },
    Known {
        names: &["redis-cli"],
        sub: None,
        flags: &[("-a", Carries::Value), ("--pass", Carries::Next)],
        wraps: false,
    },
    Known {
        names: &["openssl"],
        sub: None,
        flags: &[
            ("-k", Carries::Next),
            ("-pass", Carries::PassPrefix),
            ("-passin", Carries::PassPrefix),
            ("-passout", Carries::PassPrefix),
            ("-password", Carries::PassPrefix),
        ],
        wraps: false,
    },
    Known {
        names: &["curl"],
        sub: None,
        flags: &[
            ("-u", Carries::AfterColon),
            ("--user", Carries::AfterColon),
            ("-U", Carries::AfterColon),
            ("--proxy-user", Carries::AfterColon),
        ],
        wraps: false,
    },
];

/// Every command name the scanner looks for, with its command's index.
pub(super) fn names() -> impl Iterator<Item = (usize, &'static str)> {
    KNOWN
        .iter()
        .enumerate()
        .flat_map(|(i, k)| k.names.iter().map(move |n| (i, *n)))
}

fn ends_command(c: u8) -> bool {
    matches!(c, b'\n' | b'\r' | b';' | b'|' | b'&' | b')' | b'`')
}

/// The words after a command, each as its byte span, up to the end of the command. A quoted
/// part (`'my pw'`, `-p"x y"`) stays inside its word.
fn words(b: &[u8], mut i: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    loop {
        while i < b.len() && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        if i >= b.len() || ends_command(b[i]) {
            return out;
        }
        let start = i;
        while i < b.len() && !matches!(b[i], b' ' | b'\t') && !ends_command(b[i]) {
            if matches!(b[i], b'\'' | b'"') {
                let q = b[i];
                i += 1;
                while i < b.len() && b[i] != q {
                    i += 1;
                }
            }
            i = (i + 1).min(b.len());
        }
        out.push((start, i));
    }
}

/// `(start, end)` without one pair of surrounding quotes.
fn unquote(b: &[u8], (start, end): (usize, usize)) -> (usize, usize) {
    if end >= start + 2 && matches!(b[start], b'\'' | b'"') && b[end - 1] == b[start] {
        (start + 1, end - 1)
    } else {
        (start, end)
    }
}

/// The secret in a value span, by how the flag carries it.
fn secret(b: &[u8], value: (usize, usize), how: Carries) -> Option<(usize, usize)> {
    let (start, end) = unquote(b, value);
    let v = &b[start..end];
    let span = match how {
        Carries::Value | Carries::Next => (start, end),
        Carries::PassPrefix => (start + v.starts_with(b"pass:").then_some(5)?, end),
        Carries::AfterColon => (start + v.iter().position(|c| *c == b':')? + 1, end),
    };
    let redacted = b[span.0..].starts_with(super::super::redact::REDACTED.as_bytes());
    (span.1 > span.0 && b[span.0] != b'$' && !redacted).then_some(span)
}

/// The secret flags after command `name` (of `KNOWN[k]`) found at `at`. Returns how far its
/// arguments were read: a later match of the same command before that stands at the end of
/// one of them, and reads the rest of what this one did. A quoted word is read no further
/// (the same name inside it splits the words differently).
pub(super) fn command_span(
    b: &[u8],
    at: usize,
    name: &str,
    k: usize,
    spans: &mut Vec<(usize, usize)>,
) -> usize {
    let before = at == 0
        || matches!(b[at - 1], b' ' | b'\t' | b'/' | b'(' | b'\'' | b'"')
        || ends_command(b[at - 1]);
    let end = at + name.len();
    if !before || !b.get(end).is_some_and(|c| matches!(c, b' ' | b'\t')) {
        return at;
    }
    let args = words(b, end);
    let stop = scan_args(b, &args, &KNOWN[k], spans);
    let quoted = args[..stop]
        .iter()
        .find(|(s, e)| b[*s..*e].iter().any(|c| matches!(c, b'\'' | b'"')));
    match (quoted, args.get(stop)) {
        (Some((start, _)), _) | (None, Some((start, _))) => *start,
        (None, None) => args.last().map_or(end, |(_, e)| *e),
    }
}

/// Finds the secret flags among `args`; returns the index of the word the scan stopped at
/// (a wrapped command's name), or `args.len()`.
fn scan_args(
    b: &[u8],
    args: &[(usize, usize)],
    known: &Known,
    spans: &mut Vec<(usize, usize)>,
) -> usize {
    let mut sub_seen = known.sub.is_none();
    // A word a flag took as its value (`-p Pw`): not the start of a wrapped command.
    let mut taken = usize::MAX;
    for (n, &(start, end)) in args.iter().enumerate() {
        let word = &b[start..end];
        if !sub_seen {
            sub_seen = known.sub.is_some_and(|s| word == s.as_bytes());
            continue;
        }
        if known.wraps && n != taken && word.first() != Some(&b'-') {
            return n;
        }
        let next = args.get(n + 1).copied().filter(|(s, _)| b[*s] != b'-');
        for &(flag, how) in known.flags {
            let f = flag.as_bytes();
            let value = if word == f {
                taken = n + 1;
                next
            } else if let Some(rest) = word.strip_prefix(f) {
                match how {
                    // `--user=a:b`, `-uadmin:pw`, `-pPw`: the rest of this word.
                    Carries::Value | Carries::AfterColon if !flag.starts_with("--") => {
                        Some((start + f.len(), end))
                    }
                    _ if rest.first() == Some(&b'=') => Some((start + f.len() + 1, end)),
                    _ => None,
                }
            } else {
                None
            };
            if let Some(span) = value.and_then(|v| secret(b, v, how)) {
                spans.push(span);
                break;
            }
        }
    }
    args.len()
}
