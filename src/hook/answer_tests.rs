use super::*;

const LINE: &str = "[SEED SEQUENCE] \"starlog_initialization\" · step: check · next: mcp__starlog__check · 0% done";

fn lines(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| LINE.replace("starlog_initialization", &format!("sequence_{i}")))
        .collect()
}

/// One sequence: its line as it is.
#[test]
fn one_sequence_is_its_own_line() {
    assert_eq!(one_line(&[LINE]), Some((LINE.to_string(), 1)));
    assert_eq!(one_line(&[]), None);
}

/// Several: one line of at most 300 characters, the first whole, the others as they fit
/// without repeating the tag, then how many more there are.
#[test]
fn several_sequences_share_one_line_of_300_characters() {
    let all = lines(5);
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let (text, shown) = one_line(&refs).unwrap();
    assert!(text.chars().count() <= GUIDANCE_MAX_CHARS, "{text}");
    assert!(!text.contains('\n'));
    assert!(text.starts_with(&all[0]), "{text}");
    assert_eq!(text.matches("[SEED SEQUENCE]").count(), 1, "{text}");
    // These lines are 93 characters: the first, three more, and the count fit in 300.
    assert_eq!(shown, 4, "{text}");
    for l in &all[1..4] {
        assert!(
            text.contains(&format!(" | {}", &l["[SEED SEQUENCE] ".len()..])),
            "{text}"
        );
    }
    assert!(text.ends_with("0% done | +1 more sequence"), "{text}");
    let (text, shown) = one_line(&[&refs[..], &refs[..]].concat()).unwrap();
    assert!(text.chars().count() <= GUIDANCE_MAX_CHARS, "{text}");
    assert!(
        text.ends_with(&format!(" | +{} more sequences", 10 - shown)),
        "{text}"
    );
    // Two that fit are both shown, with nothing more to say.
    let (text, shown) = one_line(&refs[..2]).unwrap();
    assert_eq!(shown, 2);
    assert!(!text.contains("more"), "{text}");
}

/// A first line that takes the whole budget is shortened to leave room for the count.
#[test]
fn a_long_first_line_leaves_room_for_the_count() {
    let long = format!("{LINE} {}", "x".repeat(400));
    let (text, shown) = one_line(&[&long, LINE]).unwrap();
    assert_eq!(shown, 1);
    assert_eq!(text.chars().count(), GUIDANCE_MAX_CHARS, "{text}");
    assert!(text.ends_with("… | +1 more sequence"), "{text}");
}
