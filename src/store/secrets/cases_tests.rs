//! Secrets that hide in the way tools are called (a command's password flag, a config file's
//! `auth`, a connection string's `AccountKey`, a token glued to a tool name), and the
//! look-alikes that are no secret and must be kept (ports, ordinary flags, hashes).

use crate::store::redact::{REDACTED, redact_str};

/// Each case: the text, the secret that must be gone, and what must be left of the text.
const FOUND: &[(&str, &str, &str)] = &[
    (
        r#"{"auths":{"https://index.docker.io/v1/":{"auth":"dXNlcjpodW50ZXIy"}}}"#,
        "dXNlcjpodW50ZXIy",
        r#"{"auths":{"https://index.docker.io/v1/":{"auth":"[REDACTED]"}}}"#,
    ),
    (
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=q1w2e3+r4t5/y6u7==;EndpointSuffix=core.windows.net",
        "q1w2e3+r4t5/y6u7==",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=[REDACTED];EndpointSuffix=core.windows.net",
    ),
    (
        "curl -u admin:pw123 https://api.example.com",
        "pw123",
        "curl -u admin:[REDACTED] https://api.example.com",
    ),
    (
        "curl --user 'admin:s3cr et' -X POST https://x",
        "s3cr et",
        "curl --user 'admin:[REDACTED]' -X POST https://x",
    ),
    (
        "curl -uadmin:pw123 https://x && curl --user=bob:hunter2 https://y",
        "hunter2",
        "curl -uadmin:[REDACTED] https://x && curl --user=bob:[REDACTED] https://y",
    ),
    (
        "MYSQL_PWD=hunter2 mysql -u root app",
        "hunter2",
        "MYSQL_PWD=[REDACTED] mysql -u root app",
    ),
    (
        "mysql -h db -P 3306 -u root -pHunter2 app",
        "Hunter2",
        "mysql -h db -P 3306 -u root -p[REDACTED] app",
    ),
    (
        "mysqldump -u root -p Hunter2 app > dump.sql",
        "Hunter2",
        "mysqldump -u root -p [REDACTED] app > dump.sql",
    ),
    (
        "docker login -u bob -p Hunter2 registry.example.com",
        "Hunter2",
        "docker login -u bob -p [REDACTED] registry.example.com",
    ),
    (
        "sshpass -p 'my pass' ssh -p 22 bob@host",
        "my pass",
        "sshpass -p '[REDACTED]' ssh -p 22 bob@host",
    ),
    (
        "redis-cli -h cache -p 6379 -a Hunter2 PING",
        "Hunter2",
        "redis-cli -h cache -p 6379 -a [REDACTED] PING",
    ),
    (
        "openssl enc -aes-256-cbc -k Hunter2 -in a -out b",
        "Hunter2",
        "openssl enc -aes-256-cbc -k [REDACTED] -in a -out b",
    ),
    (
        "openssl pkcs12 -export -passout pass:Hunter2 -out c.p12",
        "Hunter2",
        "openssl pkcs12 -export -passout pass:[REDACTED] -out c.p12",
    ),
    (
        "mcp__x__github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz0123",
        "github_pat_11ABCDEFG0",
        "mcp__x__[REDACTED]",
    ),
    (
        "key_sk-ant-api03-abcdefghij0123456789ABCDEFGHIJ",
        "api03-abcdefghij",
        "key_[REDACTED]",
    ),
    (
        "tool_ghp_0123456789abcdefghijABCDEFGHIJklmnop",
        "0123456789abcdefghij",
        "tool_[REDACTED]",
    ),
    (
        "x_glpat-0123456789abcdefghijABCDEFGHIJ and slack_xoxb-1234567890-abcdefghijklmnopqrstuvwx",
        "glpat-0123",
        "x_[REDACTED] and slack_[REDACTED]",
    ),
];

#[test]
fn passwords_in_command_flags_config_files_and_glued_tokens_are_redacted() {
    for (text, secret, want) in FOUND {
        let got = redact_str(text).unwrap_or_else(|| panic!("not redacted: {text}"));
        assert!(!got.contains(secret), "{secret} left in {got}");
        assert_eq!(got, *want, "{text}");
    }
}

/// The same flags of other commands, a password flag with no value, variables, ports and
/// digests are kept as written.
#[test]
fn ports_ordinary_flags_and_hashes_are_kept() {
    for text in [
        "ssh -p 22 bob@host",
        "scp -P 2222 file bob@host:",
        "docker run -p 8080:80 -d nginx",
        "docker ps -a",
        "redis-cli -h cache -p 6379 PING",
        "mysql -h db -P 3306 -u root -p",
        "mysql -u root -p -e 'show databases'",
        "mysql --protocol=tcp app",
        "git log -p --stat",
        "curl -u admin https://api.example.com",
        "curl -u $USER:$PASS https://x",
        "curl -X POST -H 'Accept: */*' https://x",
        "curl --user-agent 'x:y' https://x",
        "openssl enc -d -kfile key.txt -in a",
        "openssl pkcs12 -passin env:P12_PASS -in c.p12",
        "openssl s_client -connect example.com:443",
        "sshpass -e ssh host",
        "cd /srv && PWD=/srv OLDPWD=/home/bob ls",
        "the auth: required header",
        "\"auth\": 5",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "3f78685 Merge pull request #12 from acme/task-proj-2024-roadmap",
        "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "task-ant-colony-simulation-runner-for-the-demo",
        "mysqlsh --uri root@localhost",
        "echo mysql is down; ssh -p 22 db",
    ] {
        assert_eq!(redact_str(text), None, "{text}");
    }
    // A secret already redacted is left as it is.
    let once = redact_str("mysql -pHunter2").unwrap();
    assert_eq!(redact_str(&once), None, "{once}");
    assert!(once.ends_with(REDACTED));
}

proptest::proptest! {
    /// Whatever follows a known command (quotes left open, multibyte text, separators), the
    /// scan cuts on character boundaries and never panics.
    #[test]
    fn any_arguments_of_a_known_command_are_scanned_safely(
        cmd in "(mysql|docker login|sshpass|redis-cli|openssl|curl)",
        args in "[-pauk:= '\"é;|\\PC]{0,40}",
    ) {
        let text = format!("{cmd} {args}");
        if let Some(r) = redact_str(&text) {
            proptest::prop_assert!(r.contains(REDACTED));
        }
    }
}
