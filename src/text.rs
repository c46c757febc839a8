//! Text helpers the layers share.

/// `text` cut to at most `max` bytes at a character boundary, marked with `…` when cut: for
/// a value quoted back (a previous answer, a span attribute) that must stay bounded.
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_a_character_boundary_and_says_so() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("ééééé", 5), "éé…");
        assert!(cut(&"x".repeat(1000), 128).len() <= 128 + '…'.len_utf8());
    }
}
