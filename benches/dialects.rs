//! Loader cost: a master sequence of a long tool chain (seed 000's format at 10k–50k tools, on
//! one line as a generator writes it), and guard expressions of growing length, which must
//! cost time in proportion to their length. Run with `cargo bench --bench dialects`; `-- NAME`
//! runs the sections whose name contains NAME (`load/master`, `expr`).
//! `SEED_BENCH_TOOLS=10000` loads chains of those sizes only (comma-separated), e.g. to count
//! instructions under `valgrind --tool=callgrind`, which a loaded machine does not disturb.

use std::hint::black_box;
use std::time::Instant;

use seed::dialects::load_text;
use seed::dialects::workflow::expr::compile;

fn none(_: &str) -> Option<String> {
    None
}

/// `n` tools in a chain, each with a description and a weight.
fn chain(n: usize) -> String {
    let mut text = String::from("{\"name\": \"long\", \"tool_transitions\": {");
    for i in 0..n {
        text.push_str(&format!(
            "\"s.t{i}\": {{\"next_allowed\": [\"s.t{}\"], \"description\": \"step {i}\", \"weight\": 1}},",
            i + 1
        ));
    }
    text.push_str(&format!("\"s.t{n}\": {{}}}}}}"));
    text
}

/// The best of `runs` timings of `f`, in seconds.
fn best(runs: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let run = |section: &str| filter.as_deref().is_none_or(|f| section.contains(f));
    if run("load/master") {
        let sizes: Vec<usize> = std::env::var("SEED_BENCH_TOOLS")
            .ok()
            .map(|v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect())
            .unwrap_or_else(|| vec![10_000, 50_000]);
        for n in sizes {
            let text = chain(n);
            let secs = best(5, || {
                black_box(load_text("long.json", &text, &none).expect("loads"));
            });
            println!(
                "load/master {n:>6} tools ({:.1} MB): {:.1} ms ({:.2} µs per tool)",
                text.len() as f64 / 1e6,
                secs * 1e3,
                secs * 1e6 / n as f64
            );
        }
    }
    if run("expr") {
        // A flat chain of comparisons and a nest of negated groups, each up to the length limit.
        for len in [512, 1024, 2048, 4096] {
            let mut wide = String::from("a == 1");
            while wide.len() + 12 < len {
                wide.push_str(" || b != 'x'");
            }
            let deep = format!("{}a > 1{}", "!(".repeat(30), ")".repeat(30));
            let mut nested = deep.clone();
            while nested.len() + deep.len() + 4 < len {
                nested.push_str(" && ");
                nested.push_str(&deep);
            }
            for (what, src) in [("wide", &wide), ("nested", &nested)] {
                let secs = best(200, || {
                    black_box(compile(src, &|_| false).expect("valid"));
                });
                println!(
                    "expr/{what:<6} {:>5} chars: {:>7.1} µs ({:.1} ns per char)",
                    src.chars().count(),
                    secs * 1e6,
                    secs * 1e9 / src.chars().count() as f64
                );
            }
        }
    }
}
