fn main() {
    for _ in 0..3000 {
        let _ = seed::dialects::resolve("compound_intelligence", &[]).unwrap();
    }
}
