//! The JSON refusals `serve --http` answers with (`{"error": …, "message": …}`), shared by
//! the limits (limits.rs) and the accept loop (accept.rs) so a busy server says the same
//! words whichever of them turned the request away, as the token check words its own.

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};

/// `status` with a JSON body naming the `error` and saying `message`.
pub(super) fn refusal(status: StatusCode, error: &str, message: String) -> Response {
    let body = serde_json::json!({ "error": error, "message": message }).to_string();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// 503 with `Retry-After: 1`: the server is full (`what` says how), try again in a moment.
pub(super) fn busy(what: &str) -> Response {
    let mut response = refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        "busy",
        format!("the server is busy ({what}): try again shortly"),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}
