//! The list `seed init` shows on a terminal: keys move and pick, and it draws one line per
//! sequence with its description, the picked one marked.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use seed::tui::pick::{Choice, Outcome, Picker};

fn picker() -> Picker {
    let items = [
        (
            "plan_then_build",
            "Read and plan first: no edits until the plan is approved",
        ),
        (
            "tdd",
            "Test first: a failing test run before the implementation changes",
        ),
        (
            "safe_git",
            "Commit only after the tests pass\u{1b}[31m; no force-push",
        ),
    ]
    .iter()
    .map(|(n, a)| Choice {
        name: n.to_string(),
        about: a.to_string(),
    })
    .collect();
    Picker::new("Pick the sequence to keep Claude Code on:", items)
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[test]
fn keys_move_pick_and_cancel() {
    let mut p = picker();
    assert_eq!(p.key(key(KeyCode::Up)), Outcome::Stay);
    assert_eq!(p.selected, 0, "stays at the top");
    p.key(key(KeyCode::Down));
    p.key(key(KeyCode::Char('j')));
    p.key(key(KeyCode::Down));
    assert_eq!(p.selected, 2, "stays at the bottom");
    p.key(key(KeyCode::Char('k')));
    assert_eq!(p.key(key(KeyCode::Enter)), Outcome::Picked(1));
    assert_eq!(p.key(key(KeyCode::Esc)), Outcome::Cancelled);
    assert_eq!(p.key(key(KeyCode::Char('q'))), Outcome::Cancelled);
    assert_eq!(
        p.key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        Outcome::Cancelled
    );
    let mut empty = Picker::new("none", Vec::new());
    assert_eq!(empty.key(key(KeyCode::Enter)), Outcome::Stay);
}

#[test]
fn the_list_shows_each_sequence_on_a_line() {
    let mut p = picker();
    p.key(key(KeyCode::Down));
    let mut t = Terminal::new(TestBackend::new(72, p.height())).unwrap();
    t.draw(|f| f.render_widget(&p, f.area())).unwrap();
    insta::assert_snapshot!("pick", t.backend());
}
