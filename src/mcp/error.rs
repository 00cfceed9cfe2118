//! Errors of connections and requests, phrased for the user.

use thiserror::Error;

/// Why a connection or a request failed.
#[derive(Debug, Clone, Error)]
pub enum McpError {
    /// The stdio server's program could not be started.
    #[error("cannot start `{command}`: {reason}")]
    Spawn {
        /// The command as configured.
        command: String,
        /// The OS error, with a hint.
        reason: String,
    },
    /// The handshake (`server/discover` or `initialize`) failed.
    #[error("{0}")]
    Handshake(String),
    /// The server negotiated a protocol version mcpick does not speak.
    #[error(
        "the server offered protocol version {offered:?}, which mcpick does not know (it speaks {known})"
    )]
    UnknownVersion {
        /// The version the server answered with.
        offered: String,
        /// The versions mcpick knows, comma-separated.
        known: String,
    },
    /// A request took longer than the server's `timeout_ms`.
    #[error("{method} timed out after {ms} ms (raise `timeout_ms` for this server to wait longer)")]
    Timeout {
        /// The JSON-RPC method.
        method: String,
        /// The limit that was hit.
        ms: u128,
    },
    /// The server answered with a JSON-RPC error.
    #[error(
        "server error {code}: {}{}",
        crate::text::quoted_server_text(message),
        data_suffix(.data.as_deref())
    )]
    Server {
        /// The JSON-RPC error code.
        code: i32,
        /// The server's message.
        message: String,
        /// The error's `data`, if any, as compact JSON.
        data: Option<String>,
    },
    /// A message from the server was larger than its `max_response_bytes`.
    #[error(
        "the server's answer was {}more than this server's max_response_bytes ({limit} bytes = {}); it was dropped (raise `max_response_bytes` for this server to accept it)",
        .size.map(|s| format!("{s} bytes ({}), ", crate::text::mebibytes(s))).unwrap_or_default(),
        crate::text::mebibytes(*.limit)
    )]
    TooLarge {
        /// The server's limit, in bytes.
        limit: usize,
        /// The answer's size in bytes, when known.
        size: Option<usize>,
    },
    /// The server answered a request with something no JSON-RPC reader can take (invalid
    /// JSON, a lone surrogate, nesting too deep, a malformed `error`, both `result` and
    /// `error`): the request failed at once, not after its `timeout_ms`.
    #[error(
        "the server sent an answer mcpick cannot read: {} (the server's fault: tell its authors)",
        crate::text::quoted_server_text(.0)
    )]
    Unreadable(String),
    /// The server closed the connection or exited.
    #[error("the server closed the connection{0}")]
    Closed(String),
    /// The server asked for input (2026-07-28 `input_required`) that this client cannot give.
    #[error("the server asked for more input before answering: {0}")]
    InputRequired(String),
    /// The server's config cannot be used (e.g. an unset `${VAR}`); it was not started.
    #[error("{0}")]
    Config(String),
    /// The server wants an OAuth sign-in (HTTP 401, or 403 for more scopes).
    #[error(
        "`{server}` asks you to sign in{}: run `mcpick auth login {server}` (or press Ctrl-S in the menu)",
        if *.more_scopes { " again, for more permissions" } else { "" }
    )]
    SignInRequired {
        /// The server's config name.
        server: String,
        /// Its `WWW-Authenticate` value, to start the sign-in from.
        challenge: Option<String>,
        /// A 403 `insufficient_scope`: signed in, but for too little.
        more_scopes: bool,
    },
    /// Signing in failed.
    #[error("sign-in: {0}")]
    Auth(String),
    /// A machine grant (`oauth.grant`) failed: the config or the authorization server
    /// must change, so it is not tried again, nor another way.
    #[error("sign-in with {0}")]
    Grant(String),
    /// A skill's files do not match what its server lists (size, digest, front matter):
    /// the listing is out of date (or lies), and a fresh one is the way back.
    #[error("{0}")]
    SkillRefused(String),
    /// The server is not connected (down, or never started): nothing was sent.
    #[error("{server} is {why}")]
    NotConnected {
        /// The server's name.
        server: String,
        /// What the user can do about it, after "is" (`down (F5 starts it again)`).
        why: String,
    },
    /// A handshake request answered with a JSON-RPC error: the server is there and speaks
    /// another era than the one tried.
    #[error("the server refused the handshake: error {code}: {message}")]
    HandshakeRefused {
        /// The JSON-RPC error code.
        code: i32,
        /// The server's message.
        message: String,
    },
    /// A handshake request answered after the SDK had moved on to the next (a
    /// `server/discover` answered when `initialize` was already sent).
    #[error(
        "the server answered an earlier handshake request late: its {} for request {received} came while mcpick waited for request {expected}",
        if *.result { "result" } else { "error" }
    )]
    AnsweredLate {
        /// A result (a 2026-07-28 server), not an error (a legacy one refusing it).
        result: bool,
        /// The id the late answer carried.
        received: String,
        /// The id mcpick was waiting for.
        expected: String,
    },
    /// The server answered with an HTTP error status: it was reached, but is no MCP
    /// endpoint that serves mcpick.
    #[error("{words}")]
    HttpStatus {
        /// The HTTP status.
        status: u16,
        /// The whole sentence (`crate::mcp::error::answered_http`), server text on one line.
        words: String,
    },
    /// The server could not be reached at all: why, as the transport's errors say it.
    #[error("cannot reach the server: {0}")]
    Unreachable(String),
    /// A result that lacks what its method's schema gives it (a list that is none, an
    /// entry for another URI, a `resources/read` with no contents): what is wrong.
    #[error("{0}")]
    Malformed(String),
    /// A message of a `prompts/get` result that is no prompt message.
    #[error("message {index} is not a valid prompt message: {reason}")]
    InvalidMessage {
        /// Its place in the result's `messages`, from 0.
        index: usize,
        /// What the reader found wrong.
        reason: String,
    },
    /// A result the SDK read that could not be turned back into JSON for mcpick's types.
    #[error("cannot read {what}: {reason}")]
    CannotRead {
        /// What was read (`the messages`, `skills/list`, …).
        what: &'static str,
        /// The JSON error.
        reason: String,
    },
    /// A request answered with another kind of result than its own.
    #[error("{method} was answered with {kind}, not its own result")]
    UnexpectedResult {
        /// The JSON-RPC method.
        method: String,
        /// The result's `resultType`, or `an unrelated result`.
        kind: String,
    },
    /// A server that still asked questions after every round of answers mcpick gives.
    #[error(
        "the server kept asking: prompts/get still asked for input after {rounds} rounds of answers, so mcpick gave up the request"
    )]
    KeptAsking {
        /// The rounds answered.
        rounds: usize,
    },
    /// A request that still asked for input (or only for a retry with its `requestState`)
    /// after every round mcpick tries.
    #[error("{method} still asked for input after {rounds} rounds")]
    StillAsking {
        /// The JSON-RPC method.
        method: &'static str,
        /// The rounds tried.
        rounds: usize,
    },
    /// Anything else the transport or protocol layer reported, which no caller tells
    /// apart from the rest: words to show.
    #[error("{0}")]
    Protocol(String),
}

impl McpError {
    /// The error with the query of `url` hidden wherever it is quoted: a query can hold a
    /// key (`?api_key=${input:key}`), and HTTP errors quote the URL they failed on.
    pub(crate) fn hiding_url_query(self, url: &str) -> McpError {
        let mut forms = vec![url.to_string()];
        if let Ok(parsed) = url::Url::parse(url) {
            forms.push(parsed.to_string());
        }
        let hide = |text: String| {
            forms
                .iter()
                .fold(text, |text, form| match form.find(['?', '#']) {
                    Some(at) => text.replace(form.as_str(), &format!("{}?…", &form[..at])),
                    None => text,
                })
        };
        match self {
            McpError::Handshake(text) => McpError::Handshake(hide(text)),
            McpError::Protocol(text) => McpError::Protocol(hide(text)),
            McpError::Closed(text) => McpError::Closed(hide(text)),
            McpError::Auth(text) => McpError::Auth(hide(text)),
            McpError::Unreachable(text) => McpError::Unreachable(hide(text)),
            McpError::Malformed(text) => McpError::Malformed(hide(text)),
            McpError::HttpStatus { status, words } => McpError::HttpStatus {
                status,
                words: hide(words),
            },
            McpError::HandshakeRefused { code, message } => McpError::HandshakeRefused {
                code,
                message: hide(message),
            },
            other => other,
        }
    }

    /// The error with `secrets` masked wherever it quotes the server or the transport.
    pub fn masked(self, secrets: &crate::secrets::Secrets) -> McpError {
        if secrets.is_empty() {
            return self;
        }
        let mask = |text: String| secrets.mask(&text).into_owned();
        match self {
            McpError::Server {
                code,
                message,
                data,
            } => McpError::Server {
                code,
                message: mask(message),
                data: data.map(mask),
            },
            McpError::Spawn { command, reason } => McpError::Spawn {
                command: mask(command),
                reason: mask(reason),
            },
            McpError::Handshake(text) => McpError::Handshake(mask(text)),
            McpError::Closed(text) => McpError::Closed(mask(text)),
            McpError::InputRequired(text) => McpError::InputRequired(mask(text)),
            McpError::Config(text) => McpError::Config(mask(text)),
            McpError::Auth(text) => McpError::Auth(mask(text)),
            McpError::Grant(text) => McpError::Grant(mask(text)),
            McpError::Protocol(text) => McpError::Protocol(mask(text)),
            McpError::SkillRefused(text) => McpError::SkillRefused(mask(text)),
            McpError::Unreadable(text) => McpError::Unreadable(mask(text)),
            McpError::UnknownVersion { offered, known } => McpError::UnknownVersion {
                offered: mask(offered),
                known,
            },
            McpError::HandshakeRefused { code, message } => McpError::HandshakeRefused {
                code,
                message: mask(message),
            },
            McpError::HttpStatus { status, words } => McpError::HttpStatus {
                status,
                words: mask(words),
            },
            McpError::Unreachable(text) => McpError::Unreachable(mask(text)),
            McpError::Malformed(text) => McpError::Malformed(mask(text)),
            McpError::InvalidMessage { index, reason } => McpError::InvalidMessage {
                index,
                reason: mask(reason),
            },
            McpError::CannotRead { what, reason } => McpError::CannotRead {
                what,
                reason: mask(reason),
            },
            McpError::UnexpectedResult { method, kind } => McpError::UnexpectedResult {
                method,
                kind: mask(kind),
            },
            other @ (McpError::Timeout { .. }
            | McpError::TooLarge { .. }
            | McpError::SignInRequired { .. }
            | McpError::NotConnected { .. }
            | McpError::AnsweredLate { .. }
            | McpError::KeptAsking { .. }
            | McpError::StillAsking { .. }) => other,
        }
    }

    /// The JSON-RPC error code, for server errors.
    pub fn code(&self) -> Option<i32> {
        match self {
            McpError::Server { code, .. } => Some(*code),
            _ => None,
        }
    }
}

/// The words for a server that answered an HTTP error status: it was reached (so not
/// "cannot reach"), but not at an MCP endpoint that would serve mcpick. `said` is what
/// came with the status (its reason, an excerpt of the body; may be empty), server text
/// put on one line.
pub(crate) fn answered_http(status: u16, said: &str) -> String {
    let said = text_of_html(said);
    let said = crate::text::one_line(said.split_whitespace().collect::<Vec<_>>().join(" ").trim());
    let said = crate::text::cut_chars(&said, 200);
    // The SDK keeps no body (nor reason) for 5xx: the status's own reason phrase then.
    let said = match reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
    {
        Some(reason) if said.is_empty() => reason.to_string(),
        _ => said,
    };
    // The statuses a web server that is no MCP endpoint answers a JSON-RPC POST with.
    let hint = match status {
        400 | 404 | 405 | 406 | 501 => {
            " (check the path of `url`: is this the server's MCP endpoint?)"
        }
        _ => "",
    };
    let said = if said.is_empty() {
        String::new()
    } else {
        format!(": {said}")
    };
    format!("the server answered HTTP {status} at this URL{hint}{said}")
}

/// The text of an HTML error page (its tags, head, scripts and styles left out, a few
/// entities decoded), or `said` as it is when it holds no markup. A tag cut off at the
/// end of an excerpt goes too.
pub(crate) fn text_of_html(said: &str) -> String {
    let starts_tag = |rest: &str| {
        rest.strip_prefix('<')
            .and_then(|r| r.chars().next())
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '/' || c == '!' || c == '?')
    };
    if !said.char_indices().any(|(i, _)| starts_tag(&said[i..])) {
        return said.to_string();
    }
    let mut out = String::new();
    let mut rest = said;
    while let Some(open) = rest.find('<') {
        if !starts_tag(&rest[open..]) {
            out.push_str(&rest[..=open]);
            rest = &rest[open + 1..];
            continue;
        }
        out.push_str(&rest[..open]);
        let tag = &rest[open..];
        let Some(close) = tag.find('>') else {
            // Cut in the middle of a tag: keep only the mark that it was cut.
            if tag.ends_with('…') {
                out.push('…');
            }
            rest = "";
            break;
        };
        let name: String = tag[1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        rest = &tag[close + 1..];
        // An element whose content is no text for a reader: skip to its end.
        if matches!(name.as_str(), "head" | "script" | "style" | "title") {
            let end = format!("</{name}");
            match rest.to_ascii_lowercase().find(&end) {
                Some(at) => rest = &rest[at..],
                None => rest = "",
            }
        }
        out.push(' ');
    }
    out.push_str(rest);
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}

/// Short error data is worth showing (e.g. `{"supported":[...]}`); long data is left to the log.
fn data_suffix(data: Option<&str>) -> String {
    match data {
        Some(data) if data.chars().count() <= 200 && data != "null" => format!(" ({data})"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_http_status_says_the_server_answered_it() {
        assert_eq!(
            answered_http(404, "Not Found: <html>not here</html>"),
            "the server answered HTTP 404 at this URL (check the path of `url`: is this the \
             server's MCP endpoint?): Not Found: not here"
        );
        assert_eq!(
            answered_http(500, ""),
            "the server answered HTTP 500 at this URL: Internal Server Error"
        );
        let noisy = answered_http(502, "Bad Gateway \x1b]52;c;eA==\x07\n<p>");
        assert!(
            !noisy.contains('\x1b') && !noisy.contains('\n'),
            "{noisy:?}"
        );
        assert!(!noisy.contains("cannot reach"), "{noisy}");
        // The statuses a web server that is no MCP endpoint answers: a hint and a reason.
        for status in [400, 404, 405, 406, 501] {
            let words = answered_http(status, "");
            assert!(words.contains("check the path of `url`"), "{words}");
        }
        assert_eq!(
            answered_http(501, ""),
            "the server answered HTTP 501 at this URL (check the path of `url`: is this the \
             server's MCP endpoint?): Not Implemented"
        );
        // An HTML page (Python's http.server) is read as text, not as markup.
        let page = "Not Found: <!DOCTYPE HTML> <html lang=\"en\"> <head> <meta charset=\"utf-8\"> \
                    <title>Error response</title> </head> <body> <h1>Error response</h1> \
                    <p>Error code: 404</p> <p>Message: Unsupported method (&#x27;POST&#x27;) &amp; more.</p> <p…";
        assert_eq!(
            answered_http(404, page),
            "the server answered HTTP 404 at this URL (check the path of `url`: is this the \
             server's MCP endpoint?): Not Found: Error response Error code: 404 Message: \
             Unsupported method ('POST') & more. …"
        );
        assert_eq!(
            answered_http(400, "a < b and 3<4"),
            "the server answered HTTP 400 at this URL (check the path of `url`: is this the \
             server's MCP endpoint?): a < b and 3<4"
        );
        let long = answered_http(503, &"x".repeat(5000));
        assert!(long.chars().count() < 300, "{}", long.len());
    }
}
