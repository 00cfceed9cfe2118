//! OAuth sign-in, in one room: a person through the browser (`browser`: discovery,
//! registration, the authorization code flow with PKCE, the token store), a machine with
//! its configured grant (`machine`: client credentials, `private_key_jwt`, `jwt_bearer`,
//! enterprise-managed authorization), DPoP-bound tokens (`dpop`, `dpop_http`), the JWTs
//! both sign (`jose`), and the HTTP client that renews a machine's token (`machine_client`).
//!
//! The rest of mcpick comes in through this file only: [`sign_in`] signs in however the
//! server's config says, and the rest answers what the sign-in left (state, stored tokens,
//! the authorization context a cache is keyed by, DPoP notices).

mod browser;
mod dpop;
mod dpop_http;
mod jose;
mod machine;
mod machine_client;

use crate::config::ServerConfig;
use crate::mcp::McpError;

pub use browser::{
    Browser, SignInState, authorization_context, sign_in_state, sign_out, token_path,
};
pub use dpop::take_notices as take_dpop_notices;
pub use machine::{ensure_token, is_machine, obtain};

pub(in crate::mcp) use browser::{signed_client, stored_tokens};
pub(in crate::mcp) use machine_client::{MachineClient, SignedClient};

/// Signs in to `server` as its config says: with its machine grant when it has one (no
/// browser), else a person through `browser`.
pub async fn sign_in(
    server: &ServerConfig,
    challenge: Option<String>,
    browser: Browser,
    show_url: &(dyn Fn(&str) + Send + Sync),
) -> Result<(), McpError> {
    if is_machine(server) {
        obtain(server).await
    } else {
        browser::sign_in(server, challenge, browser, show_url).await
    }
}
