//! The client side: connecting to servers over stdio, Streamable HTTP or SSE, in either
//! protocol era; listing, getting and completing; the questions servers ask mid-request;
//! and the hub that runs every configured server and reports to the app.

mod answer;
mod catalog_write;
mod child;
pub mod connection;
pub mod hub;
mod limit;
mod mrtr;
mod problems;
pub mod questions;
pub mod shapes;
pub(crate) mod sse;
