fn main() {
    let chart = seed::dialects::resolve("compound_intelligence", &[])
        .unwrap()
        .chart;
    let js = serde_json::to_string(&chart).unwrap();
    for _ in 0..3000 {
        let _: seed::engine::Chart = serde_json::from_str(&js).unwrap();
    }
}
