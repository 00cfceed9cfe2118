//! The digests a lockfile keeps: `sha256:` and hex, of definitions and rendered messages.

use crate::model::PromptMessages;
use sha2::{Digest, Sha256};

/// The digest of rendered messages: `sha256:` and the hex of their JSON.
pub fn messages_digest(messages: &PromptMessages) -> String {
    sha256(&serde_json::to_vec(&messages.messages).unwrap_or_default())
}

/// `sha256:` and 64 lowercase hex digits of `bytes`.
pub(super) fn sha256(bytes: &[u8]) -> String {
    let mut out = String::from("sha256:");
    for byte in Sha256::digest(bytes) {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}
