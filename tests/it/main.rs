//! The integration tests, as one test binary (`cargo test --test it`): each file here was
//! once its own crate under tests/, and linking the whole library once for each took most of
//! a fresh build's time. A test's name is its file's module, then its own:
//! `cargo test --test it serve::` runs what tests/it/serve.rs holds.
//!
//! The modules share one process: a test changes its children's environment (`Command::env`),
//! never this process's (no `std::env::set_var`, no `set_current_dir`), and what it sets
//! process-wide (the open-file limit) only ever raises, for every test alike.

mod common;

mod architecture;
mod cache_cli;
mod catalog;
mod chaos;
mod cli;
mod clipboard;
mod completions;
mod config_import;
mod conformance;
mod docs_examples;
mod docs_links;
mod doctor;
mod edge_servers;
mod entry;
mod floods;
mod images;
mod interop_everything;
mod interop_python;
mod job_control;
mod list_changes;
mod list_edges;
mod lock;
mod lock_menu;
mod msrv;
mod not_mcp_http;
mod oauth;
mod questions;
mod screen_reader;
mod serve;
mod serve_auth;
mod serve_hints;
mod serve_http;
mod serve_limits;
mod serve_skills;
mod server_test;
mod shell_widgets;
mod skills;
mod tmux_popup;
mod tmux_title;
mod tui_e2e;
