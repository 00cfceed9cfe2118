//! mcpick: a terminal host for MCP prompts. The library holds everything; `main.rs` only
//! parses arguments and dispatches, so tests can drive every part.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod app;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod export;
pub mod mcp;
pub mod secrets;
pub mod serve;
pub mod text;
pub mod tui;
pub mod ui;
