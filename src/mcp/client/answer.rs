//! A stdio server's answers, read at the transport seam before the SDK sees them.
//!
//! [`LineLimit`](super::limit::LineLimit) hands every whole line that answers a request
//! mcpick is waiting for to [`read_answer`], which reads it as a stream (from memory and the
//! line's temporary file, never as one buffer, never as one JSON tree):
//!
//! - An answer the SDK could not read (invalid JSON, a lone surrogate in a string, nesting
//!   deeper than 128, an `error` whose `code` is no 32-bit integer or whose `message` is no
//!   string, both `result` and `error`, neither, no `jsonrpc: "2.0"`) would be dropped by the
//!   SDK without a word, and its request would wait for its whole `timeout_ms`. It is
//!   answered at once instead, with an error naming what is wrong ([`unreadable_answer`]).
//! - The answer to a `prompts/get` is decoded here, message by message, straight into
//!   mcpick's own types, and kept in [`DecodedAnswers`] for the request; the SDK is handed an
//!   empty result in its place. The SDK would buffer the whole answer as a tree of its own,
//!   then build its typed result, which mcpick turned into a JSON tree again before reading
//!   its messages: 480,000 tiny messages (31 MiB) peaked at 1.2 GB that way.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::sync::{Arc, Mutex};

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::mcp::McpError;
use crate::model::{Message, PromptMessages};

/// The JSON-RPC error code of the stand-in for an answer mcpick cannot read.
pub const UNREADABLE_CODE: i32 = -32_098;
/// The `data.mcpick` marker of that stand-in, so no server's own -32098 is taken for it.
pub const UNREADABLE_MARKER: &str = "unreadable-answer";
/// How the stand-in's message begins (the user sees it when the SDK passes it on whole).
pub const UNREADABLE_WORDS: &str = "the server sent an answer mcpick cannot read";

/// `prompts/get` answers decoded at the seam, by request id (as JSON text: `3`, `"a"`),
/// until their request takes them: the messages, or why they are not prompt messages.
#[derive(Clone, Default)]
pub struct DecodedAnswers(Arc<Mutex<HashMap<String, DecodedGet>>>);

/// A `prompts/get` answer read at the seam: its messages (or why they are not), and
/// whether it said its `resultType` (2026-07-28 servers must; `mcpick test` checks it).
#[derive(Debug)]
pub struct DecodedGet {
    /// The messages, or why they are not prompt messages.
    pub messages: Result<PromptMessages, McpError>,
    /// Whether the result carried `resultType` (it was `complete`: any other is the SDK's).
    pub result_type_given: bool,
}

impl DecodedAnswers {
    /// Keeps what was read of the answer to request `id`.
    pub fn put(&self, id: &Value, decoded: DecodedGet) {
        let mut answers = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // Answers whose request was given up before they came are never taken: a few at
        // most, but they must not pile up.
        if answers.len() >= 64 {
            answers.clear();
        }
        answers.insert(id.to_string(), decoded);
    }

    /// Takes the answer decoded for request `id` (as JSON), if there is one.
    pub fn take(&self, id: &Value) -> Option<DecodedGet> {
        let mut answers = self.0.lock().unwrap_or_else(|e| e.into_inner());
        answers.remove(&id.to_string())
    }
}

/// What becomes of an answer read at the seam.
#[derive(Debug)]
pub enum Reading {
    /// Passed on to the SDK as it came.
    AsItIs,
    /// A `prompts/get` answer read here: the messages (or why they are not), for
    /// [`DecodedAnswers`].
    Decoded(DecodedGet),
    /// Nothing can read it: why.
    Unreadable(String),
}

/// Reads the answer in `line` (one JSON-RPC response, as a stream); `prompts_get` when it
/// answers a `prompts/get`, whose messages are then decoded.
pub fn read_answer(line: impl Read, prompts_get: bool) -> Reading {
    let reader = std::io::BufReader::with_capacity(64 * 1024, line);
    let mut json = serde_json::Deserializer::from_reader(reader);
    let read = json
        .deserialize_map(ResponseVisitor { prompts_get })
        .and_then(|response| json.end().map(|()| response));
    let response = match read {
        Ok(response) => response,
        Err(error) => return Reading::Unreadable(described(&error)),
    };
    match response.jsonrpc {
        Some(Value::String(version)) if version == "2.0" => {}
        Some(other) => {
            return Reading::Unreadable(format!("its `jsonrpc` is {other}, not \"2.0\""));
        }
        None => return Reading::Unreadable("it has no `jsonrpc: \"2.0\"`".to_string()),
    }
    match (response.result, response.error) {
        (Some(_), true) => Reading::Unreadable("it has both a `result` and an `error`".into()),
        (None, false) => Reading::Unreadable("it has neither a `result` nor an `error`".into()),
        (Some(Some(decoded)), false) => Reading::Decoded(decoded),
        _ => Reading::AsItIs,
    }
}

/// What the parser found wrong, in words a user can act on, with its place.
fn described(error: &serde_json::Error) -> String {
    let text = error.to_string();
    if text.contains("surrogate") || text.contains("hex escape") {
        format!("a string in it holds a lone surrogate or a broken \\u escape ({text})")
    } else if text.contains("recursion limit") {
        format!("it is nested deeper than 128 levels ({text})")
    } else {
        text
    }
}

/// The error answer handed to the SDK in place of one mcpick cannot read.
pub fn unreadable_answer(id: &Value, reason: &str) -> Vec<u8> {
    let answer = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": UNREADABLE_CODE,
            "message": format!("{UNREADABLE_WORDS}: {reason}"),
            "data": { "mcpick": UNREADABLE_MARKER, "reason": reason },
        },
    });
    let mut line = answer.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// The empty result handed to the SDK in place of a `prompts/get` answer decoded here.
pub fn decoded_stand_in(id: &Value) -> Vec<u8> {
    let mut line = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {}})
        .to_string()
        .into_bytes();
    line.push(b'\n');
    line
}

/// What the top level of a response held.
struct Response {
    jsonrpc: Option<Value>,
    /// A `result` was there; for a `prompts/get`, with its messages when it had a list.
    result: Option<Option<DecodedGet>>,
    /// An `error` was there (and readable).
    error: bool,
}

struct ResponseVisitor {
    prompts_get: bool,
}

impl<'de> Visitor<'de> for ResponseVisitor {
    type Value = Response;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON-RPC response object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Response, A::Error> {
        let mut response = Response {
            jsonrpc: None,
            result: None,
            error: false,
        };
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "jsonrpc" => response.jsonrpc = Some(map.next_value::<Value>()?),
                "result" if self.prompts_get => {
                    response.result = Some(map.next_value_seed(GetResultSeed)?);
                }
                "result" => {
                    map.next_value::<Valid>()?;
                    response.result = Some(None);
                }
                "error" => {
                    map.next_value::<ErrorObject>()?;
                    response.error = true;
                }
                _ => {
                    map.next_value::<Valid>()?;
                }
            }
        }
        Ok(response)
    }
}

/// Any JSON value, read through and let go of: its strings are decoded (so a lone
/// surrogate fails here as it would in the SDK), its nesting is bounded by the parser's.
struct Valid;

impl<'de> serde::Deserialize<'de> for Valid {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Valid, D::Error> {
        deserializer.deserialize_any(ValidVisitor)
    }
}

struct ValidVisitor;

/// The scalar visits of a visitor that takes any value as `$value`.
macro_rules! any_scalar {
    ($value:expr) => {
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}

impl<'de> Visitor<'de> for ValidVisitor {
    type Value = Valid;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    any_scalar!(Valid);

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Valid, A::Error> {
        while seq.next_element::<Valid>()?.is_some() {}
        Ok(Valid)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Valid, A::Error> {
        while map.next_key::<Valid>()?.is_some() {
            map.next_value::<Valid>()?;
        }
        Ok(Valid)
    }
}

/// A JSON-RPC `error` as the SDK reads it: a 32-bit integer `code`, a string `message`,
/// any `data`.
struct ErrorObject;

impl<'de> serde::Deserialize<'de> for ErrorObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ErrorObject, D::Error> {
        deserializer.deserialize_map(ErrorVisitor)
    }
}

struct ErrorVisitor;

impl<'de> Visitor<'de> for ErrorVisitor {
    type Value = ErrorObject;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an error object with an integer `code` and a string `message`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ErrorObject, A::Error> {
        use serde::de::Error;
        let (mut code, mut message) = (false, false);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "code" => {
                    map.next_value::<i32>()
                        .map_err(|e| A::Error::custom(format!("its error `code`: {e}")))?;
                    code = true;
                }
                "message" => {
                    map.next_value::<String>()
                        .map_err(|e| A::Error::custom(format!("its error `message`: {e}")))?;
                    message = true;
                }
                _ => {
                    map.next_value::<Valid>()?;
                }
            }
        }
        match (code, message) {
            (true, true) => Ok(ErrorObject),
            (false, _) => Err(A::Error::custom("its `error` has no `code`")),
            (true, false) => Err(A::Error::custom("its `error` has no `message`")),
        }
    }
}

/// A `prompts/get` result: its messages when it is a plain one with a `messages` list
/// (`None` for anything else, such as a 2026-07-28 `input_required`, which the SDK reads).
struct GetResultSeed;

impl<'de> DeserializeSeed<'de> for GetResultSeed {
    type Value = Option<DecodedGet>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(GetResultVisitor)
    }
}

struct GetResultVisitor;

impl<'de> Visitor<'de> for GetResultVisitor {
    type Value = Option<DecodedGet>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a prompts/get result")
    }

    any_scalar!(None);

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        ValidVisitor.visit_seq(seq).map(|_| None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut messages = None;
        let mut description = None;
        let mut plain = true;
        let mut result_type_given = false;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "messages" => messages = map.next_value_seed(MessagesSeed)?,
                "description" => {
                    if let Value::String(text) = map.next_value::<Value>()? {
                        description = Some(text);
                    }
                }
                "resultType" => {
                    result_type_given = true;
                    plain &= matches!(map.next_value::<Value>()?, Value::String(kind) if kind == "complete");
                }
                _ => {
                    map.next_value::<Valid>()?;
                }
            }
        }
        Ok(messages.filter(|_| plain).map(|messages| DecodedGet {
            messages: messages.map(|messages| PromptMessages {
                description,
                messages,
            }),
            result_type_given,
        }))
    }
}

/// A result's `messages`: each read as mcpick's [`Message`] as it comes; the first that is
/// none names the result's fault (the rest is still read through). `None` when it is no
/// list.
struct MessagesSeed;

impl<'de> DeserializeSeed<'de> for MessagesSeed {
    type Value = Option<Result<Vec<Message>, McpError>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(MessagesVisitor)
    }
}

struct MessagesVisitor;

impl<'de> Visitor<'de> for MessagesVisitor {
    type Value = Option<Result<Vec<Message>, McpError>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of prompt messages")
    }

    any_scalar!(None);

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        ValidVisitor.visit_map(map).map(|_| None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut messages = Vec::new();
        let mut fault = None;
        let mut index = 0;
        while let Some(value) = seq.next_element::<Value>()? {
            if fault.is_none() {
                match serde_json::from_value::<Message>(value) {
                    Ok(message) => messages.push(message),
                    Err(e) => {
                        fault = Some(McpError::InvalidMessage {
                            index,
                            reason: e.to_string(),
                        });
                    }
                }
            }
            index += 1;
        }
        messages.shrink_to_fit();
        Ok(Some(match fault {
            Some(fault) => Err(fault),
            None => Ok(messages),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str, prompts_get: bool) -> Reading {
        read_answer(line.as_bytes(), prompts_get)
    }

    fn unreadable(line: &str) -> String {
        match read(line, false) {
            Reading::Unreadable(why) => why,
            other => panic!("read {line}: {other:?}"),
        }
    }

    #[test]
    fn well_formed_answers_pass_as_they_are() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"a"}]}}"#,
            r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"no","data":[1,{"a":null}]}}"#,
            r#"{"id":1,"result":{},"jsonrpc":"2.0"}"#,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"\\ud83d\\ude00 \u{1F600}\"}}",
        ] {
            assert!(matches!(read(line, false), Reading::AsItIs), "{line}");
        }
    }

    #[test]
    fn what_the_sdk_cannot_read_is_named() {
        let surrogate = unreadable(r#"{"jsonrpc":"2.0","id":1,"result":{"text":"a\ud800b"}}"#);
        assert!(
            surrogate.starts_with("a string in it holds a lone surrogate"),
            "{surrogate}"
        );
        let trailing = unreadable(r#"{"jsonrpc":"2.0","id":1,"result":{"t":"\udc00"}}"#);
        assert!(trailing.contains("lone surrogate"), "{trailing}");
        let code = unreadable(r#"{"jsonrpc":"2.0","id":1,"error":{"code":"E42","message":"x"}}"#);
        assert!(
            code.contains("error `code`") && code.contains("E42"),
            "{code}"
        );
        let both =
            unreadable(r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}"#);
        assert!(both.contains("both a `result` and an `error`"), "{both}");
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"a":{}{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        assert!(unreadable(&deep).starts_with("it is nested deeper than 128 levels"));
        assert!(unreadable(r#"{"id":1,"result":{}}"#).contains("jsonrpc"));
        assert!(unreadable(r#"{"jsonrpc":"2.0","id":1}"#).contains("neither"));
        assert!(unreadable(r#"{"jsonrpc":"2.0","id":1,"result":{}} x"#).contains("trailing"));
    }

    #[test]
    fn a_prompts_get_answer_is_decoded_message_by_message() {
        let line = r#"{"jsonrpc":"2.0","id":4,"result":{"description":"d","messages":[
            {"role":"user","content":{"type":"text","text":"hi"}},
            {"role":"assistant","content":{"type":"future","x":1}}]}}"#;
        let Reading::Decoded(DecodedGet {
            messages: Ok(decoded),
            result_type_given: false,
        }) = read(line, true)
        else {
            panic!("not decoded");
        };
        assert_eq!(decoded.description.as_deref(), Some("d"));
        assert_eq!(decoded.messages.len(), 2);
        assert_eq!(decoded.messages[1].content.kind(), "future");
        let bad = r#"{"jsonrpc":"2.0","id":4,"result":{"messages":[
            {"role":"user","content":{"type":"text","text":"hi"}},{"role":7}]}}"#;
        let Reading::Decoded(DecodedGet {
            messages: Err(why), ..
        }) = read(bad, true)
        else {
            panic!("not refused");
        };
        assert!(
            matches!(why, McpError::InvalidMessage { index: 1, .. }),
            "{why}"
        );
        assert!(
            why.to_string()
                .starts_with("message 1 is not a valid prompt message"),
            "{why}"
        );
        // Questions first, or no list: the SDK reads them.
        let asked =
            r#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"input_required","messages":[]}}"#;
        assert!(matches!(read(asked, true), Reading::AsItIs));
        assert!(matches!(
            read(r#"{"jsonrpc":"2.0","id":4,"result":{"x":1}}"#, true),
            Reading::AsItIs
        ));
    }
}
