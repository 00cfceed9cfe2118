//! Media headers: probing any bytes as audio never panics, and what it tells is sane.

/// Fuzz entry point: the input as an audio file.
pub fn media(data: &[u8]) {
    check_audio(data);
}

/// Every promise of `audio::probe` about `bytes`.
pub fn check_audio(bytes: &[u8]) {
    let Some(info) = crate::audio::probe(bytes) else {
        return;
    };
    // A summary is one line of plain text, whatever the header said.
    let summary = info.summary();
    assert!(!summary.is_empty());
    assert!(
        !summary.chars().any(char::is_control),
        "a control character in {summary:?}"
    );
    if let Some(duration) = info.duration {
        assert!(duration.as_secs_f64().is_finite());
    }
    assert_ne!(info.sample_rate, Some(0));
    assert_ne!(info.channels, Some(0));
}
