//! The client side: connecting to servers over stdio, Streamable HTTP or SSE, in either
//! protocol era; listing, getting and completing; the questions servers ask mid-request;
//! OAuth sign-in; and the hub that runs every configured server and reports to the app.

mod answer;
pub mod auth;
mod catalog_write;
mod child;
pub mod connection;
pub mod dpop;
mod dpop_http;
pub mod grant;
pub mod hub;
mod jose;
mod limit;
mod machine_http;
mod mrtr;
mod problems;
pub mod questions;
pub(crate) mod sse;
