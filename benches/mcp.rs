//! `seed mcp` startup: spawn the release binary, send `initialize`, time the answer.
//! Run with `cargo bench --bench mcp`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_seed"));
    let home = std::env::temp_dir().join(format!("seed-mcp-bench-{}", std::process::id()));
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
    let mut times = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        let mut child = Command::new(bin)
            .arg("mcp")
            .env("SEED_HOME", &home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn seed mcp");
        let mut stdin = child.stdin.take().expect("stdin");
        writeln!(stdin, "{init}").expect("write");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read");
        times.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(line.contains("serverInfo"), "{line}");
        drop(stdin);
        let _ = child.wait();
    }
    times.sort_by(f64::total_cmp);
    let p = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "seed mcp: spawn → initialize answered, 50 runs: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
        p(0.5),
        p(0.95),
        p(1.0)
    );
}
