//! Helpers for the unit tests.

/// Bytes from hex text; whitespace is ignored (golden-byte tests write
/// their expected bytes grouped by field).
pub(crate) fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digits"))
        .collect()
}
