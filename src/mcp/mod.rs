//! MCP on the wire, both sides. This is the only module that imports `rmcp`: the rest of
//! mcpick sees the types re-exported here. `client/` connects to servers (transports,
//! handshakes, requests, sign-in, the hub that runs them all); `server/` is `mcpick serve`'s
//! side (the service, the HTTP router, its limits and token); beside them what both use:
//! errors, logs, TLS and the skill checks.

pub mod client;
mod error;
pub mod log;
pub mod log_gate;
pub mod server;
pub mod skill_verify;
mod tls;

pub mod oauth;
pub(crate) use client::sse;

pub use client::connection::{
    Connection, Known, MAX_INPUT_ROUNDS, PromptList, STDERR_TAIL, known_versions,
    looks_like_another_era,
};
pub use client::hub::{CatalogUse, CatalogWriteFailure, Hub, McpEvent, RestartPolicy};
pub use client::questions::{
    Answer, AnswerError, FieldKind, FormField, GetOutcome, InputAnswers, InputRequest, Question,
    QuestionKind,
};
pub use client::shapes::{ResultShape, recording_shapes};
pub use error::McpError;
pub use log::{
    LOG_CAPACITY, MCPICK_SOURCE, NOTE_CAPACITY, ServerLog, merge_in_order, push_bounded,
    since_start_ms,
};
pub use server::limits::HttpLimits;
pub use server::router::serve_http;
pub use server::service::{PromptServer, serve_stdio};
pub use server::token::{
    BearerToken, Credentials, HttpAccess, MIN_TOKEN_LEN, TOKEN_ENV, TokenError,
};
pub use tls::{ServeTls, TlsError, install_crypto_provider, serve_tls};
