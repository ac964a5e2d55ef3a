//! `seed learn` (`cargo bench --bench learn`): mining and the what-if replay over seed session
//! logs of 10k, 100k and 300k calls (PreToolUse + PostToolUse records each), to show the cost
//! is linear in the sessions' size: the time per call stays flat as they grow.

use std::io::Write;
use std::time::Instant;

use seed::learn::{self, Options, Thresholds};

/// A workflow with some noise: edit, test (sometimes failing), commit; now and then a stray
/// command.
fn write_logs(dir: &std::path::Path, sessions: usize, calls_per_session: usize) {
    let steps: [(&str, &str); 5] = [
        ("Edit", r#"{"file_path":"/p/src/lib.rs"}"#),
        ("Bash", r#"{"command":"cargo test"}"#),
        ("Edit", r#"{"file_path":"/p/src/main.rs"}"#),
        ("Bash", r#"{"command":"cargo test --lib"}"#),
        ("Bash", r#"{"command":"git commit -m wip"}"#),
    ];
    let mut rng = 0x5eed_u64;
    for s in 0..sessions {
        let d = dir.join("sessions").join(format!("s{s}"));
        std::fs::create_dir_all(&d).expect("dir");
        let mut w =
            std::io::BufWriter::new(std::fs::File::create(d.join("log.jsonl")).expect("log"));
        for i in 0..calls_per_session {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (tool, input) = if (rng >> 40).is_multiple_of(50) {
                (
                    "Bash",
                    format!(r#"{{"command":"tool{} x"}}"#, (rng >> 20) % 40),
                )
            } else {
                let (t, i) = steps[i % steps.len()];
                (t, i.to_string())
            };
            for (hook, phase) in [("PreToolUse", "gate"), ("PostToolUse", "advance")] {
                writeln!(
                    w,
                    r#"{{"v":1,"session":"s{s}","hook":"{hook}","phase":"{phase}","tool_use_id":"t{i}","event":{{"kind":"tool","name":"{tool}","input":{input}}}}}"#
                )
                .expect("write");
            }
        }
    }
}

fn main() {
    for calls in [10_000usize, 100_000, 300_000] {
        let dir =
            std::env::temp_dir().join(format!("seed-learn-bench-{}-{calls}", std::process::id()));
        let sessions = 20;
        write_logs(&dir, sessions, calls / sessions);
        let opts = Options {
            name: "bench".into(),
            thresholds: Thresholds {
                min_count: 2,
                dependency: 0.5,
            },
        };
        let t = Instant::now();
        let l = learn::learn(&[dir.join("sessions")], &opts).expect("learns");
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let refused: usize = l.sessions.iter().map(|s| s.refused).sum();
        println!(
            "learn, {calls} calls in {sessions} sessions: {ms:.0} ms ({:.2} µs per call); {} activities, {} edges, {refused} refused",
            ms * 1e3 / calls as f64,
            l.graph.kept.len(),
            l.graph.edges.len()
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
