//! mcpick: a terminal host for MCP prompts. The library holds everything; `main.rs` only
//! parses arguments and dispatches, so tests can drive every part.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod app;
pub mod audio;
pub mod cache;
pub mod cli;
pub mod config;
pub mod export;
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod fuzzing;
pub mod library;
pub mod lock;
pub mod mcp;
pub mod model;
pub mod render;
pub mod search;
pub mod secrets;
pub mod sys;
pub mod text;
pub mod tui;
pub mod ui;
pub mod value_io;
