//! A small list to pick one item from, drawn inline below the prompt (`seed init` without
//! `--sequence` on a terminal): ↑↓ (or k j) move, Enter picks, Esc or q cancels. The model
//! and its keys are plain data; `run` is the only part that touches the terminal.

use std::io;

use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;
use ratatui::{TerminalOptions, Viewport};

use super::sanitize::clean;

#[derive(Debug, Clone)]
pub struct Choice {
    pub name: String,
    /// One line about it.
    pub about: String,
}

#[derive(Debug, Clone)]
pub struct Picker {
    pub title: String,
    pub items: Vec<Choice>,
    pub selected: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Stay,
    Picked(usize),
    Cancelled,
}

impl Picker {
    pub fn new(title: impl Into<String>, items: Vec<Choice>) -> Picker {
        Picker {
            title: title.into(),
            items,
            selected: 0,
        }
    }

    pub fn key(&mut self, k: KeyEvent) -> Outcome {
        if k.kind == KeyEventKind::Release {
            return Outcome::Stay;
        }
        let last = self.items.len().saturating_sub(1);
        match k.code {
            KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                return Outcome::Cancelled;
            }
            KeyCode::Up | KeyCode::Char('k') => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.selected = (self.selected + 1).min(last),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.selected = last,
            KeyCode::Enter if !self.items.is_empty() => return Outcome::Picked(self.selected),
            KeyCode::Esc | KeyCode::Char('q') => return Outcome::Cancelled,
            _ => {}
        }
        Outcome::Stay
    }

    /// Rows it takes: the title, the items, the key hint.
    pub fn height(&self) -> u16 {
        u16::try_from(self.items.len() + 2).unwrap_or(u16::MAX)
    }
}

impl Widget for &Picker {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let width = usize::from(area.width);
        let name_w = self
            .items
            .iter()
            .map(|c| c.name.chars().count())
            .max()
            .unwrap_or(0)
            .min(28);
        let mut lines = vec![Line::from(Span::styled(
            clean(&self.title, width),
            Style::new().add_modifier(Modifier::BOLD),
        ))];
        for (i, c) in self.items.iter().enumerate() {
            let mark = if i == self.selected { "❯ " } else { "  " };
            let name = format!("{:<name_w$}", clean(&c.name, name_w));
            let about = clean(&c.about, width.saturating_sub(name_w + 4));
            let style = if i == self.selected {
                Style::new().add_modifier(Modifier::REVERSED)
            } else {
                Style::new()
            };
            lines.push(Line::from(vec![
                Span::styled(format!("{mark}{name}  "), style),
                Span::styled(about, Style::new().add_modifier(Modifier::DIM)),
            ]));
        }
        lines.push(Line::from(Span::styled(
            "↑↓ move · Enter picks · Esc cancels",
            Style::new().add_modifier(Modifier::DIM),
        )));
        for (row, line) in lines.into_iter().enumerate().take(usize::from(area.height)) {
            let y = area.y + u16::try_from(row).unwrap_or(u16::MAX);
            buf.set_line(area.x, y, &line, area.width);
        }
    }
}

/// Show the list inline on the terminal until an item is picked (`Some`) or the pick is
/// cancelled (`None`). The terminal is restored however it ends.
pub fn run(mut p: Picker) -> io::Result<Option<usize>> {
    let mut terminal = ratatui::try_init_with_options(TerminalOptions {
        viewport: Viewport::Inline(p.height()),
    })?;
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            ratatui::restore();
        }
    }
    let _restore = Restore;
    loop {
        terminal.draw(|f| f.render_widget(&p, f.area()))?;
        if let Event::Key(k) = event::read()? {
            match p.key(k) {
                Outcome::Stay => {}
                Outcome::Picked(i) => {
                    terminal.clear()?;
                    return Ok(Some(i));
                }
                Outcome::Cancelled => {
                    terminal.clear()?;
                    return Ok(None);
                }
            }
        }
    }
}
