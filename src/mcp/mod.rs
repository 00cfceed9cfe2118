//! MCP connections. This is the only module that imports `rmcp`: the rest of mcpick sees
//! the types re-exported here.

pub mod auth;
mod catalog_write;
mod child;
mod connection;
mod error;
mod http;
mod http_auth;
mod http_fast;
mod http_limits;
mod http_router;
mod hub;
mod input;
mod limit;
pub mod log;
mod mrtr;
mod problems;
mod server;
pub mod skill_verify;
pub(crate) mod sse;
mod tls;

pub use crate::model::skill_manifest;
pub use crate::model::{
    Completion, Content, EmbeddedResource, EntryKind, KnownContent, LogLine, MAX_PROBLEMS_LISTED,
    Message, PROBLEMS_LEFT_OUT_META_KEY, PROBLEMS_META_KEY, PromptArg, PromptInfo, PromptMessages,
    Role, ServedProblem, ServerDetails, ServerId,
};
pub use connection::{
    Connection, Known, MAX_INPUT_ROUNDS, PromptList, STDERR_TAIL, known_versions,
    looks_like_another_era,
};
pub use error::McpError;
pub use http_auth::{BearerToken, Credentials, HttpAccess, MIN_TOKEN_LEN, TOKEN_ENV};
pub use http_limits::HttpLimits;
pub use http_router::serve_http;
pub use hub::{CatalogUse, CatalogWriteFailure, Hub, McpEvent, RestartPolicy};
pub use input::{
    Answer, FieldKind, FormField, GetOutcome, InputAnswers, InputRequest, Question, QuestionKind,
};
pub use log::{
    LOG_CAPACITY, MCPICK_SOURCE, NOTE_CAPACITY, ServerLog, merge_in_order, push_bounded,
    since_start_ms,
};
pub use server::{PromptServer, serve_stdio};
pub use tls::{ServeTls, install_crypto_provider, serve_tls};
