//! The language's structure on a dialect of bare words: tokens, precedence, limits, errors.

use super::lex::{Tok, lex};
use super::*;
use crate::engine::ir::CmpOp;

struct Words;

impl Terms for Words {
    type Term = String;
    const WHAT: &'static str = "test";

    fn term(&self, c: &mut Cursor) -> Result<String, ExprError> {
        let at = c.at();
        match c.bump() {
            // Kept as written, so the tree prints back to text that reads the same.
            Some(Tok::Word(w) | Tok::Json(w)) => Ok(w),
            Some(Tok::Str(s)) => Ok(serde_json::Value::String(s).to_string()),
            _ => Err(ExprError::at(at, "not a word")),
        }
    }
}

fn canon(src: &str) -> String {
    parse(&Words, src)
        .map(|e| e.to_string())
        .unwrap_or_else(|e| panic!("{src}: {e:?}"))
}

#[test]
fn tokens_carry_character_offsets() {
    let toks = lex("a == 'é' && len(b.c) || !${d}").unwrap();
    let offsets: Vec<usize> = toks.iter().map(|(_, o)| *o).collect();
    assert_eq!(offsets, [0, 2, 5, 9, 12, 15, 16, 19, 21, 24, 25]);
    assert_eq!(toks[2].0, Tok::Str("é".into()));
    assert_eq!(toks[10].0, Tok::Word("${d}".into()));
}

#[test]
fn strings_decode_escapes_and_json_literals_stay_as_written() {
    let first = |s: &str| lex(s).unwrap().remove(0).0;
    assert_eq!(first("'a\\'b\\u00e9'"), Tok::Str("a'bé".into()));
    assert_eq!(first("\"q\\\"\\n\""), Tok::Str("q\"\n".into()));
    assert_eq!(first("[1, 2]"), Tok::Json("[1, 2]".into()));
    assert!(lex("'\\u12'").is_err());
    assert!(lex("{").is_err());
}

#[test]
fn keywords_and_symbols_are_the_same_operators() {
    let ops = |s: &str| -> Vec<Tok> { lex(s).unwrap().into_iter().map(|(t, _)| t).collect() };
    assert_eq!(ops("and or not contains"), ops("&& || ! contains"));
    assert_eq!(ops("≥ ≤ ≠"), ops(">= <= !="));
    assert_eq!(ops("<")[0], Tok::Op(CmpOp::Lt));
}

#[test]
fn and_binds_tighter_than_or_and_chains_stay_flat() {
    assert_eq!(canon("a || b && c"), "a || (b && c)");
    assert_eq!(canon("(a || b) && !c"), "(a || b) && !c");
    assert_eq!(canon("not a == b"), "!(a == b)");
    let wide = vec!["a"; 300].join(" || ");
    assert!(matches!(parse(&Words, &wide).unwrap().kind, Kind::Or(v) if v.len() == 300));
}

#[test]
fn errors_point_at_the_character_and_say_what_was_expected() {
    for (src, offset, message) in [
        ("", 0, "empty test"),
        (
            "a ==",
            4,
            "test ends early: expected a value after the comparison",
        ),
        ("!", 1, "test ends early: expected a condition"),
        ("(a", 2, "expected `)`"),
        ("a b", 2, "unexpected token after a complete test"),
        ("a == )", 5, "unexpected `)`: expected a value or a name"),
        ("a = b", 2, "`=` is not an operator: write `==` to compare"),
        (
            "a & b",
            2,
            "unexpected `&`: expected a value, a name, a comparison, &&, || or !",
        ),
        ("'open", 0, "unclosed string"),
    ] {
        let e = parse(&Words, src).expect_err(src);
        assert_eq!((e.offset, e.message.as_str()), (offset, message), "{src}");
    }
}

#[test]
fn nesting_and_length_are_bounded_at_the_token_past_the_limit() {
    let deep = format!("{}a", "(".repeat(MAX_DEPTH + 1));
    let e = parse(&Words, &deep).unwrap_err();
    assert_eq!((e.offset, e.limit), (MAX_DEPTH, true));
    assert_eq!(
        e.message,
        format!("test nested deeper than {MAX_DEPTH} levels")
    );
    let ok = format!(
        "{}a{}",
        "!(".repeat(MAX_DEPTH / 2),
        ")".repeat(MAX_DEPTH / 2)
    );
    assert!(parse(&Words, &ok).is_ok());
    let long = "a".repeat(MAX_CHARS + 1);
    assert!(
        parse(&Words, &long)
            .unwrap_err()
            .message
            .contains("longer than")
    );
}

/// Valid text of the language over a few words and strings.
fn text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let term = prop::sample::select(vec!["a", "b.c", "'s t'", "\"q\\\"\"", "-1", "[]", "x_1"]);
    let op = prop::sample::select(vec!["==", "!=", "<", "<=", ">", ">=", "≥", "contains"]);
    let leaf = prop_oneof![
        term.clone().prop_map(String::from),
        (term.clone(), op, term).prop_map(|(l, o, r)| format!("{l} {o} {r}")),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(|e| format!("!({e})")),
            inner.clone().prop_map(|e| format!("not {e}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} && {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) or ({b})")),
            inner.prop_map(|e| format!("( {e} )")),
        ]
    })
}

/// The tree without its offsets.
fn shape(e: &Expr<String>) -> String {
    format!("{:?}", e.kind)
        .split(", at: ")
        .map(|s| s.trim_start_matches(char::is_numeric))
        .collect()
}

proptest::proptest! {
    #[test]
    fn any_text_is_parsed_or_refused_without_panicking(src in "\\PC{0,300}") {
        let _ = parse(&Words, &src);
    }

    #[test]
    fn token_soup_is_parsed_or_refused_without_panicking(parts in proptest::collection::vec(
        proptest::sample::select(vec![
            "a", "(", ")", "==", "!", "&&", "||", "'", "\"", "[", "{", "}", "]", "=", "<", "\\",
            "not", "and", " ", "≥", "&", "|",
        ]),
        0..60,
    )) {
        let _ = parse(&Words, &parts.concat());
    }

    #[test]
    fn canonical_text_parses_back_to_the_same_tree(src in text()) {
        let e = parse(&Words, &src).expect("generated text is valid");
        let canon = e.to_string();
        let again = parse(&Words, &canon).expect("canonical text parses");
        proptest::prop_assert_eq!(again.to_string(), canon.clone());
        proptest::prop_assert_eq!(shape(&again), shape(&e), "{} → {}", src, canon);
    }
}
