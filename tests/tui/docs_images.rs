//! The README's images are `seed screenshot demo …` frames of the bundled demo session. This
//! renders them again and fails when a committed image differs (stale after a UI change):
//! regenerate with `SEED_REGENERATE=1 cargo test --test docs_images`.

use seed::demo::{DOC_IMAGES, render_doc_image};

#[test]
fn docs_images_are_current() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let regenerate = std::env::var_os("SEED_REGENERATE").is_some();
    let mut stale = Vec::new();
    for img in DOC_IMAGES {
        let fresh = render_doc_image(img).expect("renders");
        // Same input, same bytes: the output does not depend on the machine or the run.
        assert_eq!(
            fresh,
            render_doc_image(img).expect("renders"),
            "{} is deterministic",
            img.file
        );
        let path = root.join(img.file);
        if regenerate {
            std::fs::write(&path, &fresh).expect("write image");
            continue;
        }
        if std::fs::read(&path).ok().as_deref() != Some(fresh.as_slice()) {
            stale.push(img.file);
        }
    }
    assert!(
        stale.is_empty(),
        "stale docs images {stale:?}: run SEED_REGENERATE=1 cargo test --test docs_images"
    );
}

#[test]
fn the_cli_renders_the_same_image() {
    let img = &DOC_IMAGES[2];
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("frame.svg");
    assert_cmd::Command::cargo_bin("seed")
        .unwrap()
        .args([
            "screenshot",
            "demo",
            "--at",
            &img.at.to_string(),
            "--size",
            &format!("{}x{}", img.width, img.height),
        ])
        .args(["--theme", img.theme, "--format", "svg", "--out"])
        .arg(&file)
        .env("NO_COLOR", "")
        .assert()
        .success();
    assert_eq!(
        std::fs::read(&file).unwrap(),
        render_doc_image(img).unwrap()
    );
}
