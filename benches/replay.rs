//! Replay (`cargo bench --bench replay`): load a 100k-event session log as `seed tui --replay`
//! and `seed screenshot` do (read, parse, fold, first frame), scrub to random points (p50/p95),
//! and export one 120x40 frame to SVG and PNG. Targets: ≤ 1 s, ≤ 16 ms, ≤ 50 ms, ≤ 150 ms.

#[path = "../tests/support/tui/mod.rs"]
mod common;

use std::io::Write;
use std::time::Instant;

use seed::export::{self, Format};
use seed::replay::frame;
use seed::session::source;
use seed::tui::Theme;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let n = 100_000;
    let dir = std::env::temp_dir().join(format!("seed-replay-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let log = dir.join("log.jsonl");
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&log).expect("log"));
        common::for_each_record(n, "replay-bench", |r| {
            serde_json::to_writer(&mut w, r).expect("record");
            w.write_all(b"\n").expect("newline");
        });
    }
    let theme = Theme::load("default", None).expect("theme");

    // `seed tui --replay LOG` and `seed screenshot LOG`: resolve and parse the log, load the
    // sequences it names, fold every record once (checkpoints, scrubber marks), draw a frame.
    let opts = seed::tui::start::Options {
        state: dir.clone(),
        ..Default::default()
    };
    let t = Instant::now();
    let loaded = source::resolve(&log.display().to_string(), Some(&dir)).expect("loads");
    let read_ms = t.elapsed().as_secs_f64() * 1e3;
    let (target, records) = seed::tui::start::replay_loaded(&opts, loaded).expect("sequences");
    assert_eq!(target.seqs.len(), 1, "the log names one sequence");
    let mut model = frame::replay_at(target.info, target.seqs, records, "default", 0);
    let buf = frame::draw(&model, &theme, 120, 40);
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    println!(
        "replay load, {n} events ({:.0} MB): {load_ms:.0} ms to the first frame (read + parse {read_ms:.0} ms)",
        std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0) as f64 / 1e6
    );

    // Scrub to random points, each from the nearest checkpoint (or on from the cursor).
    let mut seed = 0x5eed_u64;
    let mut scrub = Vec::new();
    for _ in 0..300 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let k = (seed >> 33) as usize % n;
        let t = Instant::now();
        model.jump(k);
        let _ = frame::draw(&model, &theme, 120, 40);
        scrub.push(t.elapsed().as_secs_f64() * 1e3);
    }
    scrub.sort_by(f64::total_cmp);
    println!(
        "scrub + redraw, 300 random points: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
        percentile(&scrub, 0.5),
        percentile(&scrub, 0.95),
        percentile(&scrub, 1.0)
    );

    for format in [Format::Svg, Format::Png] {
        let mut times = Vec::new();
        for _ in 0..20 {
            let t = Instant::now();
            let bytes = export::render(&buf, &theme, format).expect("export");
            times.push(t.elapsed().as_secs_f64() * 1e3);
            assert!(!bytes.is_empty());
        }
        times.sort_by(f64::total_cmp);
        println!(
            "export 120x40 {format}: p50 {:.1} ms, p95 {:.1} ms",
            percentile(&times, 0.5),
            percentile(&times, 0.95)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
