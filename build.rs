//! Links the `seed` executable position-dependent on Linux (glibc). Claude Code starts `seed hook`
//! once per hook event, so start-up is most of its cost: a position-independent image of this
//! size carries ~18k relative relocations that the loader applies on every start, touching
//! ~80 pages that a fixed-address image never faults in. The measured effect is in the README's
//! benchmark section. Set `SEED_PIE=1` when building to keep the default (randomised) layout.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SEED_PIE");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let keep_pie = std::env::var("SEED_PIE").is_ok_and(|v| v == "1");
    // A static build (`cargo install-static`) chooses its own relocation model; `-no-pie` on
    // top of `crt-static` links an executable that crashes at start.
    let static_crt = std::env::var("CARGO_CFG_TARGET_FEATURE")
        .is_ok_and(|f| f.split(',').any(|x| x == "crt-static"));
    if os == "linux" && env == "gnu" && !keep_pie && !static_crt {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
