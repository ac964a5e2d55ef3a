//! Raw stdin bytes → text serde_json accepts, without failing on what real payloads contain:
//! lone UTF-16 surrogates in `\u` escapes (a Windows logger's cp1252 round trip produces them;
//! serde_json refuses them) become U+FFFD, and invalid UTF-8 is decoded lossily.

/// Replace every `\uD800`–`\uDFFF` escape that is not half of a valid pair with `\uFFFD`,
/// in place (same length, ASCII for ASCII). Returns how many were replaced.
///
/// Outside strings valid JSON has no backslashes, and inside strings every backslash starts an
/// escape, so walking from backslash to backslash and skipping whole escapes is exact.
pub fn repair_lone_surrogates(bytes: &mut [u8]) -> usize {
    let mut replaced = 0;
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'\\', &bytes[i..]) {
        let at = i + off;
        match bytes.get(at + 1) {
            Some(b'u') => {
                let Some(unit) = hex4(bytes, at + 2) else {
                    i = at + 2;
                    continue;
                };
                match unit {
                    0xD800..=0xDBFF => {
                        let low = (bytes.get(at + 6) == Some(&b'\\')
                            && bytes.get(at + 7) == Some(&b'u'))
                        .then(|| hex4(bytes, at + 8))
                        .flatten();
                        if matches!(low, Some(0xDC00..=0xDFFF)) {
                            i = at + 12;
                        } else {
                            bytes[at + 2..at + 6].copy_from_slice(b"FFFD");
                            replaced += 1;
                            i = at + 6;
                        }
                    }
                    0xDC00..=0xDFFF => {
                        bytes[at + 2..at + 6].copy_from_slice(b"FFFD");
                        replaced += 1;
                        i = at + 6;
                    }
                    _ => i = at + 6,
                }
            }
            // Any other escape (including `\\`) is two bytes long.
            Some(_) => i = at + 2,
            None => break,
        }
    }
    replaced
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let s = bytes.get(at..at + 4)?;
    let mut v = 0u32;
    for &b in s {
        v = v * 16 + (b as char).to_digit(16)?;
    }
    Some(v)
}

/// What decoding had to fix, for the log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Repairs {
    pub lone_surrogates: usize,
    pub invalid_utf8: bool,
    /// Arrays and objects nested too deep to parse, replaced by a marker
    /// ([`super::depth::flatten`]).
    pub flattened: usize,
    /// Numbers past the range of `f64`, kept as strings ([`quote_huge_numbers`]).
    pub huge_numbers: usize,
}

impl Repairs {
    pub fn any(&self) -> bool {
        self.lone_surrogates > 0 || self.invalid_utf8 || self.flattened > 0 || self.huge_numbers > 0
    }
}

/// JSON text rewritten so that it parses, after `err`: nesting past the parser's limit cut
/// ([`super::depth::flatten`]) or numbers past `f64`'s range quoted ([`quote_huge_numbers`]);
/// `None` for any other error. What was done is added to `repairs`.
pub fn refit(text: &str, err: &serde_json::Error, repairs: &mut Repairs) -> Option<String> {
    let message = err.to_string();
    if message.starts_with("recursion limit exceeded") {
        let (flat, cut) = super::depth::flatten(text, super::depth::MAX_DEPTH)?;
        repairs.flattened += cut;
        Some(flat)
    } else if message.starts_with("number out of range") {
        let (quoted, n) = quote_huge_numbers(text)?;
        repairs.huge_numbers += n;
        Some(quoted)
    } else {
        None
    }
}

/// `text` with every number too large for an `f64` (`1e400`, `-1e999`, a 400-digit integer)
/// turned into a string of its digits, and how many; `None` when there is none. The JSON
/// parser refuses such a number, which would make the whole payload unreadable (and a
/// fail-open hook skip the gate): as a string the call is judged like any other. Linear in
/// the text; strings are skipped whole.
pub fn quote_huge_numbers(text: &str) -> Option<(String, usize)> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let (mut copied, mut n, mut i) = (0, 0, 0);
    while i < b.len() {
        match b[i] {
            b'"' => i = super::depth::skip_string(b, i),
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                let token = &text[start..i];
                if token.parse::<f64>().is_ok_and(f64::is_infinite) {
                    let o = out.get_or_insert_with(|| String::with_capacity(text.len() + 2));
                    o.push_str(&text[copied..start]);
                    o.push('"');
                    o.push_str(token);
                    o.push('"');
                    copied = i;
                    n += 1;
                }
            }
            _ => i += 1,
        }
    }
    let mut o = out?;
    o.push_str(&text[copied..]);
    Some((o, n))
}

/// Decode stdin bytes into JSON text: surrogates repaired, invalid UTF-8 replaced with U+FFFD.
/// No copy when the bytes are already fine.
pub fn decode(mut bytes: Vec<u8>) -> (String, Repairs) {
    let lone_surrogates = repair_lone_surrogates(&mut bytes);
    match String::from_utf8(bytes) {
        Ok(s) => (
            s,
            Repairs {
                lone_surrogates,
                ..Repairs::default()
            },
        ),
        Err(e) => (
            String::from_utf8_lossy(e.as_bytes()).into_owned(),
            Repairs {
                lone_surrogates,
                invalid_utf8: true,
                ..Repairs::default()
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(s: &str) -> String {
        let mut b = s.as_bytes().to_vec();
        repair_lone_surrogates(&mut b);
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn pairs_are_kept_and_lone_halves_replaced() {
        assert_eq!(fix(r#""\ud83d\ude80""#), r#""\ud83d\ude80""#);
        assert_eq!(fix(r#""a\ud83db""#), r#""a\uFFFDb""#);
        assert_eq!(fix(r#""\ude80""#), r#""\uFFFD""#);
        assert_eq!(fix(r#""\ud83d\u0041""#), r#""\uFFFD\u0041""#);
        assert_eq!(fix(r#""\ud83d""#), r#""\uFFFD""#);
        // An escaped backslash followed by text that looks like an escape is text.
        assert_eq!(fix(r#""\\ud83d""#), r#""\\ud83d""#);
        assert_eq!(fix(r#""\\\ud83d""#), r#""\\\uFFFD""#);
        // Truncated escapes are left for the parser to report.
        assert_eq!(fix(r#""\ud8"#), r#""\ud8"#);
    }

    #[test]
    fn repaired_text_parses() {
        let (text, r) = decode(br#"{"p":"x\udc9d\ud83d\ude80\ud800"}"#.to_vec());
        assert_eq!(r.lone_surrogates, 2);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["p"], "x\u{FFFD}🚀\u{FFFD}");
    }

    #[test]
    fn numbers_past_f64_become_strings_and_the_rest_is_left() {
        let text = r#"{"a":1e400,"b":[-1e999, 2.5e10, 12],"s":"1e400","c":1e308}"#;
        assert!(serde_json::from_str::<serde_json::Value>(text).is_err());
        let (fixed, n) = quote_huge_numbers(text).expect("rewritten");
        assert_eq!(n, 2);
        let v: serde_json::Value = serde_json::from_str(&fixed).expect("parses");
        assert_eq!(v["a"], "1e400");
        assert_eq!(v["b"], serde_json::json!(["-1e999", 2.5e10, 12]));
        assert_eq!(
            (&v["s"], &v["c"]),
            (&serde_json::json!("1e400"), &serde_json::json!(1e308))
        );
        let digits = format!("[{}]", "9".repeat(400));
        let (fixed, _) = quote_huge_numbers(&digits).expect("rewritten");
        assert_eq!(fixed, format!("[\"{}\"]", "9".repeat(400)));
        assert_eq!(quote_huge_numbers(r#"{"a":[1,-2.5,3e2],"b":"x"}"#), None);
    }

    #[test]
    fn invalid_utf8_is_lossy() {
        let (text, r) = decode(b"{\"p\":\"a\xff\xfeb\"}".to_vec());
        assert!(r.invalid_utf8);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["p"], "a\u{FFFD}\u{FFFD}b");
    }
}
