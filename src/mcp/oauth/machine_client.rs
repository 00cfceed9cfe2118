//! The HTTP client of a server with a machine grant (`oauth.grant`): every request carries
//! the stored token, and when the server refuses it (expired, revoked) the grant runs again,
//! once per refused token however many requests were refused together, and the request is
//! sent again with the new one. rmcp's `AuthClient` can only refresh, and machine grants
//! have no refresh token: without this a long session would end at the token's expiry.

use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::AuthError;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::Sse;

use super::dpop_http::DpopHttp;
use crate::config::ServerConfig;
use crate::mcp::error::McpError;

type Error = StreamableHttpError<reqwest::Error>;

/// A reqwest client signing with a machine grant's token, obtaining a new one on refusal.
#[derive(Clone)]
pub struct MachineClient {
    server: Arc<ServerConfig>,
    /// The token in use, and the client that sends it (as a bearer token, or bound to
    /// the server's DPoP key, as the token is); replaced under the lock when the grant
    /// runs again.
    token: Arc<tokio::sync::Mutex<(String, DpopHttp)>>,
    /// The refused token whose grant then failed, and why: the grant is not run again
    /// for it (every request refused with it gets this answer at once).
    failed: Arc<std::sync::Mutex<Option<(String, String)>>>,
}

impl MachineClient {
    /// The client of `server`, signing with its stored token; `Ok(None)` without one.
    pub fn new(server: &ServerConfig) -> Result<Option<MachineClient>, McpError> {
        let Some(token) = super::browser::stored_access_token(server) else {
            return Ok(None);
        };
        Ok(Some(MachineClient {
            server: Arc::new(server.clone()),
            token: Arc::new(tokio::sync::Mutex::new((token, sender(server)?))),
            failed: Arc::default(),
        }))
    }

    /// Why the grant failed when run again, if it did: the words of [`McpError::Grant`].
    pub fn grant_failure(&self) -> Option<String> {
        let failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        failed.as_ref().map(|(_, why)| why.clone())
    }

    /// Runs `call` with the token and its client; on a refusal, a new token (unless
    /// another request got one meanwhile) and one more try.
    async fn signed<T, F, Fut>(&self, call: F) -> Result<T, Error>
    where
        F: Fn(DpopHttp, String) -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        let (sent, http) = self.token.lock().await.clone();
        match call(http, sent.clone()).await {
            Err(StreamableHttpError::AuthRequired(challenge)) => {
                let fresh = {
                    let mut token = self.token.lock().await;
                    if token.0 == sent {
                        let known = self
                            .failed
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .as_ref()
                            .filter(|(refused, _)| *refused == sent)
                            .map(|(_, why)| why.clone());
                        if let Some(why) = known {
                            return Err(AuthError::InternalError(why).into());
                        }
                        tracing::info!(server = %self.server.name, "the server refused the token; running the grant again");
                        if let Err(error) = super::machine::obtain(&self.server).await {
                            let why = match error {
                                McpError::Grant(why) => why,
                                other => other.to_string(),
                            };
                            *self.failed.lock().unwrap_or_else(|e| e.into_inner()) =
                                Some((sent.clone(), why.clone()));
                            return Err(AuthError::InternalError(why).into());
                        }
                        let new = super::browser::stored_access_token(&self.server);
                        let http = sender(&self.server).map_err(|e| {
                            StreamableHttpError::from(AuthError::InternalError(e.to_string()))
                        })?;
                        match new {
                            Some(new) => *token = (new, http),
                            None => return Err(StreamableHttpError::AuthRequired(challenge)),
                        }
                    }
                    token.clone()
                };
                if fresh.0 == sent {
                    return Err(StreamableHttpError::AuthRequired(challenge));
                }
                call(fresh.1, fresh.0).await
            }
            other => other,
        }
    }
}

/// The client that sends `server`'s stored token as it is bound (or not).
fn sender(server: &ServerConfig) -> Result<DpopHttp, McpError> {
    Ok(match super::browser::stored_binding(server)? {
        Some(prover) => DpopHttp::bound(prover),
        None => DpopHttp::bearer(),
    })
}

impl StreamableHttpClient for MachineClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.signed(|http, token| {
            let (uri, message, session, headers) = (
                uri.clone(),
                message.clone(),
                session_id.clone(),
                custom_headers.clone(),
            );
            async move {
                http.post_message(uri, message, session, Some(token), headers)
                    .await
            }
        })
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.signed(|http, token| {
            let (uri, message, session, headers) = (
                uri.clone(),
                message.clone(),
                session_id.clone(),
                custom_headers.clone(),
            );
            async move {
                http.post_message_with_max_sse_event_size(
                    uri,
                    message,
                    session,
                    Some(token),
                    headers,
                    max_sse_event_size,
                )
                .await
            }
        })
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.signed(|http, token| {
            let (uri, message, session, headers) = (
                uri.clone(),
                message.clone(),
                session_id.clone(),
                custom_headers.clone(),
            );
            async move {
                http.post_message_with_response_limits(
                    uri,
                    message,
                    session,
                    Some(token),
                    headers,
                    limits,
                )
                .await
            }
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Error> {
        self.signed(|http, token| {
            let (uri, session, headers) = (uri.clone(), session_id.clone(), custom_headers.clone());
            async move {
                http.delete_session(uri, session, Some(token), headers)
                    .await
            }
        })
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        self.signed(|http, token| {
            let (uri, session, last, headers) = (
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                custom_headers.clone(),
            );
            async move {
                http.get_stream(uri, session, last, Some(token), headers)
                    .await
            }
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        self.signed(|http, token| {
            let (uri, session, last, headers) = (
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                custom_headers.clone(),
            );
            async move {
                http.get_stream_with_max_sse_event_size(
                    uri,
                    session,
                    last,
                    Some(token),
                    headers,
                    max_sse_event_size,
                )
                .await
            }
        })
        .await
    }
}

/// What signs an HTTP server's requests: a person's sign-in (rmcp's `AuthClient`, which
/// refreshes it) or a machine grant ([`MachineClient`]). One type for both, so the
/// Streamable HTTP transport (large and generic over its client) is built once for them.
#[derive(Clone)]
pub enum SignedClient {
    /// Tokens a person signed in for.
    Person(rmcp::transport::AuthClient<DpopHttp>),
    /// Tokens a machine grant obtains.
    Machine(MachineClient),
}

impl StreamableHttpClient for SignedClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        match self {
            SignedClient::Person(client) => {
                client
                    .post_message(uri, message, session_id, auth_header, custom_headers)
                    .await
            }
            SignedClient::Machine(client) => {
                client
                    .post_message(uri, message, session_id, auth_header, custom_headers)
                    .await
            }
        }
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, Error> {
        match self {
            SignedClient::Person(client) => {
                client
                    .post_message_with_max_sse_event_size(
                        uri,
                        message,
                        session_id,
                        auth_header,
                        custom_headers,
                        max_sse_event_size,
                    )
                    .await
            }
            SignedClient::Machine(client) => {
                client
                    .post_message_with_max_sse_event_size(
                        uri,
                        message,
                        session_id,
                        auth_header,
                        custom_headers,
                        max_sse_event_size,
                    )
                    .await
            }
        }
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Error> {
        match self {
            SignedClient::Person(client) => {
                client
                    .post_message_with_response_limits(
                        uri,
                        message,
                        session_id,
                        auth_header,
                        custom_headers,
                        limits,
                    )
                    .await
            }
            SignedClient::Machine(client) => {
                client
                    .post_message_with_response_limits(
                        uri,
                        message,
                        session_id,
                        auth_header,
                        custom_headers,
                        limits,
                    )
                    .await
            }
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Error> {
        match self {
            SignedClient::Person(client) => {
                client
                    .delete_session(uri, session_id, auth_header, custom_headers)
                    .await
            }
            SignedClient::Machine(client) => {
                client
                    .delete_session(uri, session_id, auth_header, custom_headers)
                    .await
            }
        }
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        match self {
            SignedClient::Person(client) => {
                client
                    .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
                    .await
            }
            SignedClient::Machine(client) => {
                client
                    .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
                    .await
            }
        }
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        match self {
            SignedClient::Person(client) => {
                client
                    .get_stream_with_max_sse_event_size(
                        uri,
                        session_id,
                        last_event_id,
                        auth_header,
                        custom_headers,
                        max_sse_event_size,
                    )
                    .await
            }
            SignedClient::Machine(client) => {
                client
                    .get_stream_with_max_sse_event_size(
                        uri,
                        session_id,
                        last_event_id,
                        auth_header,
                        custom_headers,
                        max_sse_event_size,
                    )
                    .await
            }
        }
    }
}
