use std::path::Path;

use ratatui::style::{Color, Modifier};

use super::*;

pub(super) fn load(name: &str) -> Theme {
    match Theme::load(name, None) {
        Ok(theme) => theme,
        Err(err) => panic!("built-in theme {name} must load: {err}"),
    }
}

/// The colours a role's text is drawn in, as the theme's terminal shows them.
fn effective(theme: &Theme, role: Role) -> (Rgb, Rgb) {
    let style = theme.style(role);
    let fg = theme.palette.fg(style.fg.unwrap_or(Color::Reset));
    let bg = theme.palette.bg(style.bg.unwrap_or(Color::Reset));
    if style.add_modifier.contains(Modifier::REVERSED) {
        (bg, fg)
    } else {
        (fg, bg)
    }
}

/// Roles whose contrast is below the WCAG threshold for their kind (text 4.5:1, lines 3:1).
fn poor_contrast(theme: &Theme, text_minimum: f64) -> Vec<String> {
    Role::ALL
        .iter()
        .filter_map(|&role| {
            let (fg, bg) = effective(theme, role);
            let ratio = fg.contrast_ratio(bg);
            let minimum = if role.is_text() { text_minimum } else { 3.0 };
            (ratio < minimum).then(|| format!("{role}: {} on {} = {ratio:.2}", fg.hex(), bg.hex()))
        })
        .collect()
}

pub(super) fn write_theme(dir: &Path, name: &str, text: &str) {
    let themes = dir.join("themes");
    std::fs::create_dir_all(&themes).expect("create themes dir");
    std::fs::write(themes.join(format!("{name}.toml")), text).expect("write theme");
}

#[test]
fn every_builtin_theme_parses_and_resolves_every_role() {
    assert_eq!(
        Theme::builtin_names(),
        ["default", "light", "high-contrast", "ascii"]
    );
    for name in Theme::builtin_names() {
        let theme = load(name);
        assert_eq!(theme.name, name);
        assert_eq!(theme.styles().count(), Role::COUNT);
        assert!(theme.symbols.all().iter().all(|s| !s.is_empty()));
    }
}

#[test]
fn every_file_in_the_themes_directory_is_built_in() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("themes");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("themes dir")
        .filter_map(|e| Some(e.ok()?.path().file_stem()?.to_str()?.to_owned()))
        .collect();
    files.sort();
    let mut builtins = Theme::builtin_names();
    builtins.sort();
    assert_eq!(files, builtins);
}

#[test]
fn role_names_round_trip_and_every_fallback_chain_ends_at_base() {
    for &role in Role::ALL {
        assert_eq!(Role::from_name(role.as_str()), Some(role));
        let chain = role.fallback_chain();
        assert!(chain.len() < Role::COUNT, "{role} has a fallback cycle");
        if role != Role::Base {
            assert_eq!(chain.last(), Some(&Role::Base), "{role}");
        }
    }
    assert_eq!(Role::from_name("statechart.bogus"), None);
}

#[test]
fn role_list_with_fallbacks_is_documented() {
    let list: Vec<String> = Role::ALL
        .iter()
        .map(|role| {
            let mut chain = vec![role.as_str()];
            chain.extend(role.fallback_chain().iter().map(|r| r.as_str()));
            chain.join(" -> ")
        })
        .collect();
    insta::assert_snapshot!(list.join("\n"));
}

#[test]
fn light_theme_is_readable_on_a_white_terminal() {
    let light = load("light");
    assert_eq!(light.palette.background, Rgb::new(0xff, 0xff, 0xff));
    assert_eq!(poor_contrast(&light, 4.5), Vec::<String>::new());
}

#[test]
fn colour_themes_keep_readable_contrast_and_high_contrast_reaches_aaa() {
    assert_eq!(poor_contrast(&load("default"), 4.5), Vec::<String>::new());
    assert_eq!(
        poor_contrast(&load("high-contrast"), 7.0),
        Vec::<String>::new()
    );
}

#[test]
fn contrast_ratio_matches_wcag_reference_values() {
    let black = Rgb::new(0, 0, 0);
    let white = Rgb::new(255, 255, 255);
    assert!((black.contrast_ratio(white) - 21.0).abs() < 1e-9);
    assert!((white.contrast_ratio(white) - 1.0).abs() < 1e-9);
    // #767676 on white is the classic "just passes AA" grey.
    let grey = Rgb::new(0x76, 0x76, 0x76);
    assert!(grey.contrast_ratio(white) >= 4.5 && grey.contrast_ratio(white) < 4.6);
}

#[test]
fn ascii_theme_uses_only_ascii_symbols_and_no_colour() {
    let ascii = load("ascii");
    for symbol in ascii.symbols.all() {
        assert!(symbol.is_ascii(), "{symbol:?} is not ASCII");
    }
    assert_eq!(ascii.symbols.bar_full, "#");
    assert_eq!(ascii.symbols.bar_empty, "-");
    assert_eq!(ascii.symbols.border.horizontal, "-");
    assert_eq!(ascii.symbols.border.vertical, "|");
    assert_eq!(ascii.symbols.border.top_left, "+");
    for (role, style) in ascii.styles() {
        assert_eq!((style.fg, style.bg), (None, None), "{role} has a colour");
    }
    // Without colour, the current node must still stand out.
    let current = ascii.style(Role::StatechartCurrent);
    assert!(current.add_modifier.contains(Modifier::REVERSED));
}

#[test]
fn no_color_keeps_the_chosen_symbols_but_drops_every_colour() {
    let plain = Theme::select("default", None, true).expect("select");
    let ascii = load("ascii");
    assert_eq!(plain.symbols, load("default").symbols);
    assert_eq!(plain.palette, ascii.palette);
    for &role in Role::ALL {
        assert_eq!(plain.style(role), ascii.style(role), "{role}");
    }
    assert_eq!(Theme::select("ascii", None, true).expect("select"), ascii);
    assert_eq!(
        Theme::select("light", None, false).expect("select"),
        load("light")
    );
}

#[test]
fn a_role_left_out_inherits_its_fallback_and_patches_on_top() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_theme(
        dir.path(),
        "mine",
        r##"
[palette]
gold = "#ffd700"
[roles]
"base" = { fg = "white", bg = "black" }
"accent" = { fg = "gold", bold = true }
"statechart.current" = { bold = false, underline = true }
"##,
    );
    let theme = Theme::load("mine", Some(dir.path())).expect("load");
    let current = theme.style(Role::StatechartCurrent);
    assert_eq!(current.fg, Some(Color::Rgb(0xff, 0xd7, 0x00)));
    assert_eq!(current.bg, Some(Color::Black));
    assert!(current.add_modifier.contains(Modifier::UNDERLINED));
    assert!(!current.add_modifier.contains(Modifier::BOLD));
    // title -> accent: inherits gold and bold untouched.
    assert_eq!(theme.style(Role::Title), theme.style(Role::Accent));
    // With no [ansi] table, Reset looks like the base role's colours.
    assert_eq!(theme.palette.background, palette::XTERM_ANSI[0]);
    assert_eq!(theme.palette.foreground, palette::XTERM_ANSI[15]);
}

#[test]
fn a_user_theme_shadows_the_builtin_of_the_same_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_theme(
        dir.path(),
        "default",
        "[meta]\nparent = \"default\"\n[roles]\n\"tools.denied\" = \"#ff0000\"\n",
    );
    let theme = Theme::load("default", Some(dir.path())).expect("load");
    assert_eq!(
        theme.style(Role::ToolsDenied).fg,
        Some(Color::Rgb(255, 0, 0))
    );
    // Everything else comes from the built-in default it extends.
    let builtin = load("default");
    assert_eq!(
        theme.style(Role::StatechartCurrent),
        builtin.style(Role::StatechartCurrent)
    );
    assert_eq!(theme.symbols, builtin.symbols);
    // Without the user directory the built-in is untouched.
    assert_eq!(Theme::load("default", None).expect("load"), builtin);
}

#[test]
fn user_themes_join_the_cycle_after_the_builtins() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_theme(dir.path(), "zebra", "[meta]\nparent = \"light\"\n");
    write_theme(dir.path(), "default", "");
    let names = Theme::available(Some(dir.path()));
    assert_eq!(
        names,
        ["default", "light", "high-contrast", "ascii", "zebra"]
    );
    assert_eq!(next_name("ascii", &names), Some("zebra"));
    assert_eq!(next_name("zebra", &names), Some("default"));
    assert_eq!(next_name("gone", &names), Some("default"));
    assert_eq!(next_name("x", &[]), None);
    assert!(Theme::load("zebra", Some(dir.path())).is_ok());
}

#[test]
fn an_unknown_theme_name_lists_the_builtins() {
    let err = Theme::load("nope", None).expect_err("unknown");
    assert_eq!(
        err.to_string(),
        "no theme named `nope` (built-in: default, light, high-contrast, ascii)"
    );
    // A name is a file stem, never a path.
    assert!(Theme::load("../default", None).is_err());
}

#[test]
fn palette_maps_named_and_indexed_colours_through_the_theme() {
    let default = load("default");
    let p = &default.palette;
    assert_eq!(p.fg(Color::Reset), Rgb::new(0xc5, 0xc8, 0xc6));
    assert_eq!(p.bg(Color::Reset), Rgb::new(0x1d, 0x1f, 0x21));
    assert_eq!(p.fg(Color::Red), Rgb::new(0xcc, 0x66, 0x66));
    assert_eq!(p.fg(Color::Indexed(1)), p.fg(Color::Red));
    assert_eq!(p.fg(Color::Indexed(16)), Rgb::new(0, 0, 0));
    assert_eq!(p.fg(Color::Indexed(231)), Rgb::new(255, 255, 255));
    assert_eq!(p.fg(Color::Indexed(232)), Rgb::new(8, 8, 8));
    assert_eq!(p.fg(Color::Rgb(1, 2, 3)), Rgb::new(1, 2, 3));
}

#[test]
fn border_symbols_convert_to_a_ratatui_border_set() {
    let ascii = load("ascii");
    let set = ascii.symbols.border.as_set();
    assert_eq!(
        [
            set.top_left,
            set.horizontal_top,
            set.vertical_right,
            set.bottom_right
        ],
        ["+", "-", "|", "+"]
    );
}
