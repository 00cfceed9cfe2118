//! The server side of `mcpick serve`: the MCP service over the prompt library (service.rs),
//! its HTTP router (router.rs) and accept loop (accept.rs), the direct answer of plain
//! 2026-07-28 reads (fast.rs), its limits (limits.rs), the JSON refusals both of those
//! answer with (refusals.rs) and its bearer token (token.rs).

pub(in crate::mcp) mod accept;
pub(in crate::mcp) mod connections;
mod fast;
pub mod limits;
mod refusals;
pub mod router;
pub mod service;
pub mod token;
