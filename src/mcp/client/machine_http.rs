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
    /// Sends the token as a bearer token, or bound to the server's DPoP key.
    http: DpopHttp,
    server: Arc<ServerConfig>,
    /// The token in use; replaced under the lock when the grant runs again.
    token: Arc<tokio::sync::Mutex<String>>,
    /// The refused token whose grant then failed, and why: the grant is not run again
    /// for it (every request refused with it gets this answer at once).
    failed: Arc<std::sync::Mutex<Option<(String, String)>>>,
}

impl MachineClient {
    /// The client of `server`, signing with its stored token; `Ok(None)` without one.
    pub fn new(server: &ServerConfig) -> Result<Option<MachineClient>, McpError> {
        let Some(token) = super::auth::stored_access_token(server) else {
            return Ok(None);
        };
        let http = match super::auth::stored_binding(server)? {
            Some(prover) => DpopHttp::bound(prover),
            None => DpopHttp::bearer(),
        };
        Ok(Some(MachineClient {
            http,
            server: Arc::new(server.clone()),
            token: Arc::new(tokio::sync::Mutex::new(token)),
            failed: Arc::default(),
        }))
    }

    /// Why the grant failed when run again, if it did: the words of [`McpError::Grant`].
    pub fn grant_failure(&self) -> Option<String> {
        let failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        failed.as_ref().map(|(_, why)| why.clone())
    }

    /// Runs `call` with the token; on a refusal, a new token (unless another request got
    /// one meanwhile) and one more try.
    async fn signed<T, F, Fut>(&self, call: F) -> Result<T, Error>
    where
        F: Fn(String) -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        let sent = self.token.lock().await.clone();
        match call(sent.clone()).await {
            Err(StreamableHttpError::AuthRequired(challenge)) => {
                let fresh = {
                    let mut token = self.token.lock().await;
                    if *token == sent {
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
                        if let Err(error) = super::grant::obtain(&self.server).await {
                            let why = match error {
                                McpError::Grant(why) => why,
                                other => other.to_string(),
                            };
                            *self.failed.lock().unwrap_or_else(|e| e.into_inner()) =
                                Some((sent.clone(), why.clone()));
                            return Err(AuthError::InternalError(why).into());
                        }
                        match super::auth::stored_access_token(&self.server) {
                            Some(new) => *token = new,
                            None => return Err(StreamableHttpError::AuthRequired(challenge)),
                        }
                    }
                    token.clone()
                };
                if fresh == sent {
                    return Err(StreamableHttpError::AuthRequired(challenge));
                }
                call(fresh).await
            }
            other => other,
        }
    }
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
        self.signed(|token| {
            self.http.post_message(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                Some(token),
                custom_headers.clone(),
            )
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
        self.signed(|token| {
            self.http.post_message_with_max_sse_event_size(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                Some(token),
                custom_headers.clone(),
                max_sse_event_size,
            )
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
        self.signed(|token| {
            self.http.post_message_with_response_limits(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                Some(token),
                custom_headers.clone(),
                limits,
            )
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
        self.signed(|token| {
            self.http.delete_session(
                uri.clone(),
                session_id.clone(),
                Some(token),
                custom_headers.clone(),
            )
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
        self.signed(|token| {
            self.http.get_stream(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                Some(token),
                custom_headers.clone(),
            )
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
        self.signed(|token| {
            self.http.get_stream_with_max_sse_event_size(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                Some(token),
                custom_headers.clone(),
                max_sse_event_size,
            )
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
