use seed::engine::{Event, Facts, Machine, Phase};
use std::time::Instant;
fn main() {
    let n = 200;
    let t = Instant::now();
    for _ in 0..n {
        let _ = seed::dialects::resolve("compound_intelligence", &[]).unwrap();
    }
    println!(
        "resolve {:.1} us",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
    let chart = seed::dialects::resolve("compound_intelligence", &[])
        .unwrap()
        .chart;
    let t = Instant::now();
    for _ in 0..n {
        let _ = Machine::new(chart.clone());
    }
    println!(
        "Machine::new {:.1} us",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
    let t = Instant::now();
    for _ in 0..n {
        let _ = chart.fingerprint();
    }
    println!(
        "fingerprint {:.1} us",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
    let js = serde_json::to_string(&chart).unwrap();
    println!("chart json {} bytes", js.len());
    let t = Instant::now();
    for _ in 0..n {
        let _: seed::engine::Chart = serde_json::from_str(&js).unwrap();
    }
    println!(
        "chart from json {:.1} us",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
    let m = Machine::new(chart);
    let facts = Facts::new();
    let snap = m.start(&facts);
    let sj = serde_json::to_string(&snap).unwrap();
    let t = Instant::now();
    for _ in 0..n {
        let _: seed::engine::Snapshot = serde_json::from_str(&sj).unwrap();
    }
    println!(
        "snapshot from json {:.1} us ({} bytes)",
        t.elapsed().as_secs_f64() * 1e6 / n as f64,
        sj.len()
    );
    let ev = Event::tool("Read", serde_json::json!({"file_path":"/tmp/x"}));
    let t = Instant::now();
    for _ in 0..n {
        let mut s = snap.clone();
        let _ = m.step(&mut s, Phase::Gate, &ev, &facts);
    }
    println!(
        "step gate {:.1} us",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
    let t = Instant::now();
    for _ in 0..n {
        let _ = m.guidance_line(&snap);
    }
    println!(
        "guidance {:.1} us",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
    let t = Instant::now();
    for _ in 0..n {
        let _ = m.status(&snap);
    }
    println!(
        "status {:.1} us",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
    let vars = seed::store::readers::ReaderVars {
        home: None,
        heaven_data_dir: Some("/tmp/nope".into()),
        project_dir: None,
        seed_home: None,
    };
    let t = Instant::now();
    for _ in 0..n {
        let _ = seed::store::readers::sample(
            m.chart.readers.iter(),
            &vars,
            std::time::SystemTime::now(),
        );
    }
    println!(
        "readers {:.1} us",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
    let t = Instant::now();
    for _ in 0..n {
        let _ = seed::config::load(
            &[std::path::PathBuf::from("/tmp/a/b/c")],
            &|k| std::env::var(k).ok(),
            &Default::default(),
        );
    }
    println!(
        "config {:.1} us",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}
