//! Requests on an open connection: `prompts/get` in either era (with the questions a server asks on the way), tools, resources, completion.

use crate::mcp::client::connection::{
    InFlight, LEGACY_QUESTION_KEY, LegacyExchange, Page, all_pages, elicitation_meta, kept_asking,
    legacy_answer, lock, read_contents, read_messages, tidy_annotations, unexpected,
};
use crate::mcp::client::mrtr;
use crate::mcp::client::questions::{GetOutcome, InputAnswers, InputRequest};
use crate::mcp::client::shapes::{self, ResultShape};
use crate::mcp::error::McpError;
use crate::mcp::{Connection, MAX_INPUT_ROUNDS};
use crate::model::{Completion, EmbeddedResource, PromptMessages};
use rmcp::model::{
    ArgumentInfo, CallToolRequest, CallToolRequestParams, ClientRequest, CompleteRequest,
    CompleteRequestParams, CompletionContext, ElicitResult, ElicitationAction, GetPromptRequest,
    GetPromptRequestParams, ListToolsRequest, PaginatedRequestParams, ReadResourceRequest,
    ReadResourceRequestParams, Reference, RequestId, ServerResult,
};
use rmcp::service::{PeerRequestOptions, ServiceError};
use std::collections::BTreeMap;
use tokio::sync::mpsc;

impl Connection {
    /// Fills a prompt. Dropping the future cancels the request (`notifications/cancelled`).
    /// Declares no elicitation, so a 2026-07-28 server fills the prompt without asking if it
    /// can; questions it asks anyway come back as [`McpError::InputRequired`] naming them.
    /// A legacy server's mid-request question is declined (nobody is asked).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: &BTreeMap<String, String>,
    ) -> Result<PromptMessages, McpError> {
        match self.prompts_get(name, arguments, None, false).await? {
            GetOutcome::Messages(messages) => Ok(messages),
            GetOutcome::InputRequired(request) => {
                Err(McpError::InputRequired(mrtr::describe(&request)))
            }
        }
    }

    /// One round of filling a prompt that may ask the user first: call with
    /// `answers: None`, then, while it returns [`GetOutcome::InputRequired`], again with the
    /// user's answers and that result's `request_state`. Dropping the future cancels the
    /// request.
    ///
    /// A 2026-07-28 server asks with an `input_required` result (form elicitation is
    /// declared on this request); rounds that carry only `requestState` are retried here at
    /// once. A legacy server asks with `elicitation/create` while the request waits: the
    /// question comes back the same way, as one [`Question`](crate::mcp::client::questions::Question) keyed
    /// [`LEGACY_QUESTION_KEY`], while the request stays open on the connection; the next
    /// call with the answers sends them to the server and waits on. The timeout restarts
    /// after each answer (the user's time is not the server's), and a server that asks
    /// more than [`MAX_INPUT_ROUNDS`] times in one request is refused.
    pub async fn get_prompt_round(
        &self,
        name: &str,
        arguments: &BTreeMap<String, String>,
        answers: Option<&InputAnswers>,
    ) -> Result<GetOutcome, McpError> {
        if self.is_modern() {
            return self.modern_round(name, arguments, answers).await;
        }
        // A new request gives up the one left waiting (if any): that cancels it.
        let waiting = lock(&self.waiting_for_answer).take();
        let exchange = match (answers, waiting) {
            (None, _) => self.start_legacy_get(name, arguments).await?,
            (Some(answers), Some(mut waiting))
                if answers.request_state.as_deref() == Some(waiting.state().as_str()) =>
            {
                if let Some(reply) = waiting.reply.take() {
                    // The server may have given up meanwhile; its answer then says so.
                    let _ = reply.send(legacy_answer(answers));
                }
                waiting.deadline = tokio::time::Instant::now() + self.timeout;
                waiting
            }
            (Some(_), waiting) => {
                // Not the answers to the question waiting: that one keeps waiting.
                *lock(&self.waiting_for_answer) = waiting;
                return Err(McpError::Protocol(
                    "the server's question is no longer waiting for an answer \
                     (its request ended); fill the prompt again"
                        .into(),
                ));
            }
        };
        self.wait_on_legacy_get(exchange).await
    }

    /// One round of a 2026-07-28 `prompts/get` (see [`Connection::get_prompt_round`]),
    /// counted: a new fill (`answers: None`) starts at zero, and a server that still asks
    /// after [`MAX_INPUT_ROUNDS`] rounds of answers is refused.
    pub(super) async fn modern_round(
        &self,
        name: &str,
        arguments: &BTreeMap<String, String>,
        answers: Option<&InputAnswers>,
    ) -> Result<GetOutcome, McpError> {
        if answers.is_none() {
            *lock(&self.modern_rounds) = 0;
        }
        let outcome = self.prompts_get(name, arguments, answers, true).await?;
        if matches!(outcome, GetOutcome::InputRequired(_)) {
            let mut rounds = lock(&self.modern_rounds);
            *rounds += 1;
            if *rounds > MAX_INPUT_ROUNDS {
                return Err(kept_asking());
            }
        }
        Ok(outcome)
    }

    /// Declines a legacy server's question left waiting by [`Connection::get_prompt_round`]
    /// and gives up its request (cancelled): for a caller that will not answer. Nothing
    /// happens when no question waits (a 2026-07-28 server is simply not retried).
    pub fn decline_waiting_question(&self) {
        if let Some(mut waiting) = lock(&self.waiting_for_answer).take()
            && let Some(reply) = waiting.reply.take()
        {
            let _ = reply.send(ElicitResult::new(ElicitationAction::Decline));
        }
    }

    pub(super) fn get_params(
        name: &str,
        arguments: &BTreeMap<String, String>,
    ) -> GetPromptRequestParams {
        let args: serde_json::Map<String, serde_json::Value> = arguments
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect();
        let mut params = GetPromptRequestParams::new(name);
        if !args.is_empty() {
            params = params.with_arguments(args);
        }
        params
    }

    /// Sends a legacy `prompts/get` whose server's questions are routed to the user.
    pub(super) async fn start_legacy_get(
        &self,
        name: &str,
        arguments: &BTreeMap<String, String>,
    ) -> Result<LegacyExchange, McpError> {
        let (route, questions) = mpsc::channel(1);
        // The route is open before the request is sent: a quick question is not missed.
        let token = {
            let mut routes = lock(&self.questions);
            routes.last_token += 1;
            routes.current = Some((routes.last_token, route));
            routes.last_token
        };
        let mut exchange = LegacyExchange {
            token,
            routes: self.questions.clone(),
            questions,
            reply: None,
            rounds: 0,
            response: None,
            in_flight: None,
            deadline: tokio::time::Instant::now() + self.timeout,
        };
        let request = ClientRequest::GetPromptRequest(GetPromptRequest::new(Self::get_params(
            name, arguments,
        )));
        let handle = self
            .send_within(
                "prompts/get",
                exchange.deadline,
                request,
                PeerRequestOptions::no_options(),
            )
            .await?;
        exchange.in_flight = Some(InFlight {
            peer: self.peer.clone(),
            id: Some(handle.id.clone()),
            pending: self.pending_cancels.clone(),
        });
        exchange.response = Some(Box::pin(handle.await_response()));
        Ok(exchange)
    }

    /// Waits (at most `timeout_ms`) for a legacy `prompts/get`'s result or its server's next
    /// question; a question leaves the request waiting on the connection.
    pub(super) async fn wait_on_legacy_get(
        &self,
        mut exchange: LegacyExchange,
    ) -> Result<GetOutcome, McpError> {
        let Some(mut response) = exchange.response.take() else {
            return Err(McpError::Protocol("prompts/get was not sent".into()));
        };
        let timeout = tokio::time::sleep_until(exchange.deadline);
        tokio::select! {
            result = &mut response => {
                let id = exchange.in_flight.as_mut().and_then(|in_flight| in_flight.id.take());
                match result {
                    Err(ServiceError::TransportClosed) => Err(self.closed_error().await),
                    Err(error) => Err(self.service_error(error)),
                    Ok(result) => self.read_get_answer(id.as_ref(), result),
                }
            }
            Some(question) = exchange.questions.recv() => {
                exchange.rounds += 1;
                if exchange.rounds > MAX_INPUT_ROUNDS {
                    let _ = question.reply.send(ElicitResult::new(ElicitationAction::Decline));
                    // Dropping the exchange cancels the request.
                    return Err(kept_asking());
                }
                let asked = mrtr::parse_question(
                    LEGACY_QUESTION_KEY,
                    &serde_json::json!({"method": "elicitation/create", "params": question.params}),
                );
                exchange.reply = Some(question.reply);
                exchange.response = Some(response);
                let request_state = Some(exchange.state());
                *lock(&self.waiting_for_answer) = Some(exchange);
                Ok(GetOutcome::InputRequired(InputRequest {
                    questions: vec![asked],
                    request_state,
                }))
            }
            () = timeout => {
                if let Some(in_flight) = exchange.in_flight.as_mut() {
                    in_flight.cancel("timed out");
                }
                Err(self.timed_out("prompts/get"))
            }
        }
    }

    /// The answer to `prompts/get` request `id`: the messages read at the transport seam
    /// when they were (stdio), else `result` as the SDK read it.
    pub(super) fn read_get_answer(
        &self,
        id: Option<&RequestId>,
        result: ServerResult,
    ) -> Result<GetOutcome, McpError> {
        let decoded = id
            .and_then(|id| serde_json::to_value(id).ok())
            .and_then(|id| self.decoded.take(&id));
        let Some(decoded) = decoded else {
            return self.read_get_result(result);
        };
        shapes::note(|| ResultShape {
            method: "prompts/get",
            result_type: decoded.result_type_given.then(|| "complete".to_string()),
            ..ResultShape::default()
        });
        match decoded.messages {
            Ok(messages) => self.masked_messages(messages).map(GetOutcome::Messages),
            Err(fault) => Err(fault),
        }
    }

    /// Messages decoded at the seam, with config values (and tokens) masked as in
    /// [`Connection::read_get_result`]: one message at a time.
    fn masked_messages(&self, mut messages: PromptMessages) -> Result<PromptMessages, McpError> {
        if self.secrets.is_empty() {
            return Ok(messages);
        }
        messages.description = self.mask(messages.description);
        for message in &mut messages.messages {
            let mut value = serde_json::to_value(&*message).map_err(|e| McpError::CannotRead {
                what: "the messages",
                reason: e.to_string(),
            })?;
            self.secrets.mask_json(&mut value);
            *message = serde_json::from_value(value).map_err(|e| McpError::CannotRead {
                what: "the messages",
                reason: e.to_string(),
            })?;
        }
        Ok(messages)
    }

    /// A `prompts/get` result: the messages, or (2026-07-28) the questions asked first.
    pub(super) fn read_get_result(&self, result: ServerResult) -> Result<GetOutcome, McpError> {
        let asked = match result {
            ServerResult::GetPromptResult(result) => {
                shapes::note(|| ResultShape {
                    method: "prompts/get",
                    result_type: result.result_type.as_ref().map(|t| t.as_str().to_string()),
                    ..ResultShape::default()
                });
                let mut value =
                    serde_json::to_value(&result).map_err(|e| McpError::CannotRead {
                        what: "the messages",
                        reason: e.to_string(),
                    })?;
                tidy_annotations(&mut value);
                self.secrets.mask_json(&mut value);
                return read_messages(value).map(GetOutcome::Messages);
            }
            // The SDK types questions it knows; one it does not (an unknown method, a
            // schema beyond its types) leaves the whole result raw.
            ServerResult::InputRequiredResult(request) => {
                let value = serde_json::to_value(&request).map_err(|e| McpError::CannotRead {
                    what: "the questions",
                    reason: e.to_string(),
                })?;
                mrtr::parse_input_required(&value)
            }
            ServerResult::CustomResult(custom) if mrtr::is_input_required(&custom.0) => {
                mrtr::parse_input_required(&custom.0)
            }
            // A result the SDK has no type for (a content kind or role from beyond the
            // schema it knows) arrives raw: read it with mcpick's own, more tolerant types.
            ServerResult::CustomResult(mut custom) if custom.0.get("messages").is_some() => {
                shapes::note(|| shapes::of_raw("prompts/get", &custom.0, ""));
                self.secrets.mask_json(&mut custom.0);
                return read_messages(custom.0).map(GetOutcome::Messages);
            }
            other => return Err(unexpected("prompts/get", &other)),
        };
        Ok(GetOutcome::InputRequired(asked))
    }

    /// One `prompts/get`, and its `requestState`-only retries. Never cached, here or in
    /// the catalog: a prompt's messages depend on its arguments and, for `input_required`
    /// retries, on the answers and the state they carry (the spec forbids caching those),
    /// so each fill asks the server.
    pub(super) async fn prompts_get(
        &self,
        name: &str,
        arguments: &BTreeMap<String, String>,
        answers: Option<&InputAnswers>,
        can_ask: bool,
    ) -> Result<GetOutcome, McpError> {
        let mut params = Self::get_params(name, arguments);
        if let Some(answers) = answers {
            params.input_responses = Some(mrtr::input_responses(answers).into_iter().collect());
            params.request_state = answers.request_state.clone();
        }
        // Only 2026-07-28 servers ask through `input_required`; legacy ones send
        // `elicitation/create` mid-request, which `get_prompt_round` routes to the user.
        let elicitation = can_ask && self.is_modern();
        for _ in 0..MAX_INPUT_ROUNDS {
            let request = ClientRequest::GetPromptRequest(GetPromptRequest::new(params.clone()));
            let options = if elicitation {
                PeerRequestOptions::no_options().with_meta(elicitation_meta())
            } else {
                self.plain_options()
            };
            let (id, result) = self
                .request_with_id("prompts/get", request, options)
                .await?;
            let asked = match self.read_get_answer(Some(&id), result)? {
                GetOutcome::InputRequired(asked) => asked,
                messages => return Ok(messages),
            };
            if !asked.questions.is_empty() {
                return Ok(GetOutcome::InputRequired(asked));
            }
            // Only `requestState` (e.g. load shedding): retry at once, echoing it.
            params.request_state = asked.request_state;
            params.input_responses = None;
        }
        Err(McpError::StillAsking {
            method: "prompts/get",
            rounds: MAX_INPUT_ROUNDS,
        })
    }

    /// The names of the server's tools (`tools/list`, every page). mcpick is a prompt host
    /// and does not use tools itself; this exists for protocol checks (the conformance
    /// client) against servers that serve only tools.
    pub async fn list_tools(&self) -> Result<Vec<String>, McpError> {
        let listed = all_pages("tools/list", ["tool", "tools"], |cursor, _| async move {
            let params = PaginatedRequestParams::default().with_cursor(cursor);
            let request = ListToolsRequest::with_param(params);
            let page = match self
                .request("tools/list", ClientRequest::ListToolsRequest(request))
                .await?
            {
                ServerResult::ListToolsResult(page) => page,
                other => return Err(unexpected("tools/list", &other)),
            };
            let names = page
                .tools
                .into_iter()
                .map(|t| t.name.into_owned())
                .collect();
            Ok(Page {
                hints: None,
                items: names,
                skipped: Vec::new(),
                next: page.next_cursor,
            })
        })
        .await?;
        for warning in &listed.warnings {
            tracing::warn!(target: "mcpick::server", server = %self.name, "{warning}");
        }
        Ok(listed.items)
    }

    /// Calls a tool (`tools/call`) and returns its result as JSON. Like
    /// [`Connection::list_tools`], for protocol checks only.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<serde_json::Value, McpError> {
        let mut params = CallToolRequestParams::new(name.to_string());
        params.arguments = Some(arguments);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let result = self.request("tools/call", request).await?;
        serde_json::to_value(&result).map_err(|e| McpError::CannotRead {
            what: "the tool result",
            reason: e.to_string(),
        })
    }

    /// Reads a resource (`resources/read`): its contents, text or base64 blobs. Questions
    /// a 2026-07-28 server asks first are not answered: they fail as
    /// [`McpError::InputRequired`]. Dropping the future cancels the request.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<EmbeddedResource>, McpError> {
        let mut params = ReadResourceRequestParams::new(uri);
        for _ in 0..MAX_INPUT_ROUNDS {
            let request =
                ClientRequest::ReadResourceRequest(ReadResourceRequest::new(params.clone()));
            let value = match self.request("resources/read", request).await? {
                ServerResult::ReadResourceResult(result) => {
                    serde_json::to_value(&result).map_err(|e| McpError::CannotRead {
                        what: "the contents",
                        reason: e.to_string(),
                    })?
                }
                ServerResult::InputRequiredResult(request) => serde_json::to_value(&request)
                    .map_err(|e| McpError::CannotRead {
                        what: "the questions",
                        reason: e.to_string(),
                    })?,
                ServerResult::CustomResult(custom)
                    if mrtr::is_input_required(&custom.0) || custom.0.get("contents").is_some() =>
                {
                    custom.0
                }
                other => return Err(unexpected("resources/read", &other)),
            };
            if !mrtr::is_input_required(&value) {
                return read_contents(&value);
            }
            let asked = mrtr::parse_input_required(&value);
            if !asked.questions.is_empty() {
                return Err(McpError::InputRequired(mrtr::describe(&asked)));
            }
            params.request_state = asked.request_state;
        }
        Err(McpError::StillAsking {
            method: "resources/read",
            rounds: MAX_INPUT_ROUNDS,
        })
    }

    /// Asks the server to complete `argument` of `prompt` from `value`, with the other
    /// arguments' values as context.
    pub async fn complete(
        &self,
        prompt: &str,
        argument: &str,
        value: &str,
        context: &BTreeMap<String, String>,
    ) -> Result<Completion, McpError> {
        // 2024-11-05 had no `completions` flag: there, just try.
        if !self.details.completions && self.details.protocol_version != "2024-11-05" {
            return Err(McpError::Protocol(
                "the server does not offer completion (it declared no `completions` capability)"
                    .into(),
            ));
        }
        let mut params = CompleteRequestParams::new(
            Reference::for_prompt(prompt),
            ArgumentInfo::new(argument, value),
        );
        if !context.is_empty() {
            params = params.with_context(CompletionContext::with_arguments(
                context
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            ));
        }
        let request = ClientRequest::CompleteRequest(CompleteRequest::new(params));
        let result = match self.request("completion/complete", request).await? {
            ServerResult::CompleteResult(result) => result,
            other => return Err(unexpected("completion/complete", &other)),
        };
        Ok(Completion {
            values: result
                .completion
                .values
                .into_iter()
                .map(|v| self.secrets.mask(&v).into_owned())
                .collect(),
            total: result.completion.total,
            has_more: result.completion.has_more,
        })
    }
}
