//! Bad theme files: each kind of mistake names the file, the line and the key.

use super::tests::write_theme;
use super::*;

/// Loads user theme `name` from a fresh directory holding `files`, expecting an error.
fn load_error(files: &[(&str, &str)], name: &str) -> ThemeError {
    let dir = tempfile::tempdir().expect("tempdir");
    for (file, text) in files {
        write_theme(dir.path(), file, text);
    }
    match Theme::load(name, Some(dir.path())) {
        Ok(_) => panic!("theme {name} should not load"),
        Err(err) => {
            let shown = err.to_string();
            assert!(!shown.contains('\n'), "one-line Display: {shown:?}");
            assert!(
                shown.starts_with(&err.file) && err.file.ends_with(".toml"),
                "{shown}"
            );
            err
        }
    }
}

fn assert_error(err: &ThemeError, line: usize, key: &str) {
    assert_eq!(
        (err.line, err.key.as_deref()),
        (Some(line), Some(key)),
        "{err}"
    );
}

#[test]
fn an_unknown_role_names_file_line_and_key() {
    let text = "[roles]\n\"base\" = \"red\"\n\"statechart.bogus\" = \"red\"\n";
    let err = load_error(&[("bad", text)], "bad");
    assert_error(&err, 3, "roles.\"statechart.bogus\"");
    assert_eq!(err.kind, ThemeErrorKind::UnknownRole);
    assert!(
        err.to_string()
            .ends_with("bad.toml:3: roles.\"statechart.bogus\": unknown role")
    );
}

#[test]
fn an_unknown_palette_colour_names_file_line_and_key() {
    let text = "[palette]\nfg = \"#ffffff\"\n[roles]\n\"title\" = { fg = \"fgg\" }\n";
    let err = load_error(&[("bad", text)], "bad");
    assert_error(&err, 4, "roles.title.fg");
    assert_eq!(err.kind, ThemeErrorKind::UnknownColour("fgg".into()));
}

#[test]
fn bad_colour_syntax_names_file_line_and_key() {
    let err = load_error(&[("bad", "[palette]\n\nfg = \"#12345\"\n")], "bad");
    assert_error(&err, 3, "palette.fg");
    assert_eq!(err.kind, ThemeErrorKind::BadColour("#12345".into()));

    let err = load_error(&[("bad", "[roles]\n\"muted\" = \"#zzzzzz\"\n")], "bad");
    assert_error(&err, 2, "roles.muted");
    assert_eq!(err.kind, ThemeErrorKind::BadColour("#zzzzzz".into()));
}

#[test]
fn a_bad_symbol_names_file_line_and_key() {
    let cases = [
        ("[symbols]\nbar_full = \"##\"\n", 2, "symbols.bar_full"),
        ("[symbols]\nbar_empty = \"\"\n", 2, "symbols.bar_empty"),
        (
            "[symbols]\n\nbar_partials = \"ab\\u0007\"\n",
            3,
            "symbols.bar_partials",
        ),
        ("[symbols]\nborder = \"wavy\"\n", 2, "symbols.border"),
        (
            "[symbols]\nborder = { top_left = \"+\" }\n",
            2,
            "symbols.border.top_right",
        ),
        (
            "[symbols]\nmarkers = { loop = \"中\" }\n",
            2,
            "symbols.markers.loop",
        ),
    ];
    for (text, line, key) in cases {
        let err = load_error(&[("bad", text)], "bad");
        assert_error(&err, line, key);
        assert!(matches!(err.kind, ThemeErrorKind::BadSymbol(_)), "{err}");
    }
}

#[test]
fn a_missing_parent_names_file_line_and_key() {
    let err = load_error(&[("bad", "# mine\n[meta]\nparent = \"ghost\"\n")], "bad");
    assert_error(&err, 3, "meta.parent");
    assert_eq!(err.kind, ThemeErrorKind::ParentNotFound("ghost".into()));
}

#[test]
fn a_parent_cycle_is_detected() {
    let err = load_error(
        &[
            ("a", "[meta]\nparent = \"b\"\n"),
            ("b", "[meta]\nparent = \"a\"\n"),
        ],
        "a",
    );
    assert!(err.file.ends_with("b.toml"), "{err}");
    assert_error(&err, 2, "meta.parent");
    assert_eq!(err.kind, ThemeErrorKind::Cycle("a -> b -> a".into()));
}

#[test]
fn a_parent_chain_deeper_than_eight_is_refused() {
    let files: Vec<(String, String)> = (0..12)
        .map(|i| {
            (
                format!("t{i}"),
                format!("[meta]\nparent = \"t{}\"\n", i + 1),
            )
        })
        .collect();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let err = load_error(&files, "t0");
    assert_eq!(err.kind, ThemeErrorKind::TooDeep(MAX_PARENTS));
    // Eight parents (t1 to t7, then ascii) are fine.
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..7 {
        write_theme(
            dir.path(),
            &format!("t{i}"),
            &format!("[meta]\nparent = \"t{}\"\n", i + 1),
        );
    }
    write_theme(dir.path(), "t7", "[meta]\nparent = \"ascii\"\n");
    assert!(Theme::load("t0", Some(dir.path())).is_ok());
}

#[test]
fn unknown_keys_and_bad_toml_name_file_line_and_key() {
    let err = load_error(&[("bad", "[symbols]\nbar_ful = \"#\"\n")], "bad");
    assert_error(&err, 2, "symbols.bar_ful");
    assert!(matches!(err.kind, ThemeErrorKind::Syntax(_)));

    let err = load_error(
        &[(
            "bad",
            "[roles]\n\"title\" = { fg = \"red\", blod = true }\n",
        )],
        "bad",
    );
    assert_error(&err, 2, "roles.title.blod");

    let err = load_error(&[("bad", "[palette]\nfg = \"#fff\n")], "bad");
    assert_eq!(err.line, Some(2), "{err}");
    assert!(matches!(err.kind, ThemeErrorKind::Syntax(_)));

    let err = load_error(&[("bad", "[ansi]\npurple = \"#800080\"\n")], "bad");
    assert_error(&err, 2, "ansi.purple");
    let err = load_error(&[("bad", "[ansi]\nred = \"blue\"\n")], "bad");
    assert_eq!(err.kind, ThemeErrorKind::NeedRgb("blue".into()));
}

#[test]
fn errors_in_a_parent_name_the_parent_file() {
    let err = load_error(
        &[
            ("child", "[meta]\nparent = \"base\"\n"),
            ("base", "[roles]\n\n\"nope\" = \"red\"\n"),
        ],
        "child",
    );
    assert!(err.file.ends_with("base.toml"), "{err}");
    assert_error(&err, 3, "roles.nope");
}
