//! Screenshot export of one 120×40 frame full of styled content, SVG and PNG.
//! Targets (ARCHITECTURE §6): SVG ≤ 50 ms, PNG ≤ 150 ms.
//!
//! Run: `cargo bench --bench export`

use std::hint::black_box;
use std::time::{Duration, Instant};

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use seed::export::{Format, render};
use seed::theme::{Role, Theme};

const RUNS: usize = 50;

/// Every row styled differently, cycling through roles, bars, borders and markers, so the frame
/// has many background and text runs (a worst case compared with the real dashboard).
fn frame(theme: &Theme) -> Buffer {
    let area = Rect::new(0, 0, 120, 40);
    let mut buf = Buffer::empty(area);
    buf.set_style(area, theme.style(Role::Base));
    let s = &theme.symbols;
    let m = &s.markers;
    for y in 0..area.height {
        let role = Role::ALL[usize::from(y) % Role::ALL.len()];
        let line = match y % 4 {
            0 => format!(
                "{}{}{} {y:>3}% layer {}",
                s.bar_full.repeat(40),
                s.bar_partials.first().map_or("", String::as_str),
                s.bar_empty.repeat(30),
                role
            ),
            1 => format!(
                "{} starlog.orient {} done {} failed {} choice {} parallel {} loop │ Read Write Bash",
                m.active, m.done, m.failed, m.choice, m.parallel, m.loop_
            ),
            2 => format!(
                "{}{}{}",
                s.border.top_left,
                s.border.horizontal.repeat(116),
                s.border.top_right
            ),
            _ => format!("12:{y:02}:07 PreToolUse Edit src/main.rs <denied> & \"recovered\" 中文"),
        };
        buf.set_string(0, y, &line, theme.style(role));
        // Sprinkle attribute changes and named colours across the row.
        for x in (0..area.width).step_by(7) {
            let cell = &mut buf[(x, y)];
            let style =
                Style::new()
                    .bg(Color::Indexed((x + y) as u8))
                    .add_modifier(if x % 2 == 0 {
                        Modifier::BOLD
                    } else {
                        Modifier::REVERSED
                    });
            cell.set_style(style);
        }
    }
    buf
}

fn stats(name: &str, mut times: Vec<Duration>, bytes: usize) {
    times.sort();
    let mean = times.iter().sum::<Duration>() / times.len() as u32;
    let p95 = times[(times.len() * 95).div_ceil(100) - 1];
    println!(
        "{name:<4} 120x40: mean {:>7.2} ms  p95 {:>7.2} ms  min {:>7.2} ms  ({} runs, {} bytes)",
        mean.as_secs_f64() * 1e3,
        p95.as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3,
        times.len(),
        bytes
    );
}

fn main() {
    let theme = match Theme::load("default", None) {
        Ok(theme) => theme,
        Err(err) => panic!("{err}"),
    };
    let buf = frame(&theme);
    for format in [Format::Svg, Format::Png] {
        let start = Instant::now();
        let first = render(&buf, &theme, format).expect("render");
        println!(
            "{:<4} first render (cold): {:.2} ms",
            format.as_str(),
            start.elapsed().as_secs_f64() * 1e3
        );
        let times: Vec<Duration> = (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                black_box(render(black_box(&buf), &theme, format).expect("render"));
                start.elapsed()
            })
            .collect();
        stats(format.as_str(), times, first.len());
    }
}
