//! The server side of `mcpick serve`: a prompt library on the wire, over stdio or
//! Streamable HTTP, for clients of both eras (2026-07-28 `server/discover` and the
//! `initialize` handshake). List changes reach legacy clients as
//! `notifications/prompts/list_changed` and 2026-07-28 clients on `subscriptions/listen`.
//! The text files the prompts embed are offered as resources too, and every cacheable
//! result carries the `ttlMs`/`cacheScope` hints of [`CacheHints`].
//!
//! Skill folders are served as SEP-2640 skills (the `io.modelcontextprotocol/skills`
//! extension, with `directoryRead`): `skills/list`, `skills/get`, every file of a skill as
//! a `skill://` resource (in `resources/list` and `resources/read`), and
//! `resources/directory/read` for the folders. This is mcpick's own code on rmcp's model
//! types and handler hooks, not rmcp's `skills-fs` `SkillCatalog`: the library in
//! `crate::library` reads and checks the folders (and reloads them on change, as it does
//! prompt files), so the wire layer only answers from the snapshot it holds, and no
//! second filesystem layer (cap-std) is built. A skill change is told as a resources list
//! change, in both eras: SEP-2640 defines no notice of its own.

use std::collections::BTreeMap;

use rmcp::model::{
    CacheScope, ClientNotification, ClientRequest, CompleteRequestParams, CompleteResult,
    DiscoverResult, ErrorData, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    GetSkillRequestParams, GetSkillResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListSkillsResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Reference, SKILLS_EXTENSION_ID, ServerCapabilities,
    ServerConfig, ServerResult, SubscriptionFilter, SubscriptionsListenResult,
};
use rmcp::service::{
    NotificationContext, RequestContext, RoleServer, Service, SubscriptionContext,
};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::library::skills::{SKILL_SCHEME, SkillDef};
use crate::library::{
    ArgumentError, CacheHints, Library, PromptDef, ServedResource, SharedLibrary,
};
use crate::model::{
    MAX_PROBLEMS_LISTED, PROBLEMS_LEFT_OUT_META_KEY, PROBLEMS_META_KEY, SKILL_PROMPT_META_KEY,
    ServedProblem,
};

/// How `mcpick serve` answers.
#[derive(Debug, Clone)]
pub struct PromptServer {
    library: SharedLibrary,
    page_size: usize,
    hints: CacheHints,
    client_gone: CancellationToken,
}

impl PromptServer {
    /// Cancelled when the client of a stdio server has gone (for the HTTP drain).
    pub(in crate::mcp) fn client_gone(&self) -> CancellationToken {
        self.client_gone.clone()
    }

    /// Serves `library` with `page_size` prompts per `prompts/list` page.
    pub fn new(library: SharedLibrary, page_size: usize) -> PromptServer {
        PromptServer {
            library,
            page_size: page_size.max(1),
            hints: CacheHints::default(),
            client_gone: CancellationToken::new(),
        }
    }

    /// The same server, with these `ttlMs`/`cacheScope` hints on its cacheable results.
    pub fn with_cache_hints(mut self, hints: CacheHints) -> PromptServer {
        self.hints = hints;
        self
    }

    /// The `prompts/list` page of `library` (one taken from [`PromptServer::library_now`])
    /// at `cursor` (the first page lists the load problems too); `modern` for a 2026-07-28
    /// client. Shared by the SDK's handler and the direct path of `serve --http`
    /// (`http_fast.rs`), so both answer alike.
    pub(in crate::mcp) fn prompts_page_of(
        &self,
        library: &Library,
        cursor: Option<&str>,
        modern: bool,
    ) -> Result<ListPromptsResult, ErrorData> {
        let (page, next) = library
            .page(cursor, self.page_size)
            .map_err(invalid_params)?;
        let prompts: Vec<Value> = page
            .iter()
            .map(|prompt| {
                let mut value = prompt_json(prompt);
                // A skill folder's prompt says which skill it is (same SKILL.md).
                if let Some(skill) = library.skills().iter().find(|s| s.source == prompt.source) {
                    value["_meta"] = json!({ SKILL_PROMPT_META_KEY: skill.uri() });
                }
                value
            })
            .collect();
        let mut result = json!({ "prompts": prompts });
        self.add_hints(&mut result);
        if let Some(next) = next {
            result["nextCursor"] = json!(next);
        }
        if cursor.is_none() {
            add_problems(&mut result, library);
        }
        from_json(mark_complete_for(result, modern))
    }

    /// The library as it is now (a new one after each change on disk).
    pub(in crate::mcp) fn library_now(&self) -> std::sync::Arc<Library> {
        self.library.current()
    }

    /// The `prompts/get` result: the prompt filled with the request's arguments (a value
    /// that is not a string is filled in as its JSON text); `modern` as for
    /// [`PromptServer::prompts_page_of`].
    pub(in crate::mcp) fn filled_prompt(
        &self,
        request: GetPromptRequestParams,
        modern: bool,
    ) -> Result<GetPromptResult, ErrorData> {
        let filled = self.rendered_prompt(&request.name, request.arguments.unwrap_or_default())?;
        prompt_result(filled, modern)
    }

    /// The prompt `name` of the library as it is now, filled with `arguments` (a value that
    /// is not a string is filled in as its JSON text).
    pub(in crate::mcp) fn rendered_prompt(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (String, Value)>,
    ) -> Result<crate::model::PromptMessages, ErrorData> {
        let values: BTreeMap<String, String> = arguments
            .into_iter()
            .map(|(k, v)| {
                let text = match v {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                (k, text)
            })
            .collect();
        self.library
            .current()
            .render(name, &values)
            .map_err(invalid_params)
    }

    /// Adds the list hints to a cacheable result (`prompts/list`, `resources/*`).
    fn add_hints(&self, result: &mut Value) {
        result["ttlMs"] = json!(self.hints.list_ttl_ms);
        result["cacheScope"] = json!(self.hints.scope());
    }
}

impl PromptServer {
    /// `resources/read` of a `skill://` URI: the file's bytes as read when the library was
    /// loaded, the ones its listed digest describes (text when UTF-8, else base64).
    fn read_skill_file(
        &self,
        uri: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        use base64::Engine as _;
        let library = self.library.current();
        let Some((_, file)) = library.skill_file(uri) else {
            if library.skill_directory(uri).is_some() {
                return Err(ErrorData::invalid_params(
                    format!("{uri} is a folder: list it with resources/directory/read"),
                    None,
                ));
            }
            return Err(ErrorData::resource_not_found(
                format!("no resource {uri}: skills/list names every skill file served"),
                // The URI asked for, as the spec's example carries it (SEP-2164).
                Some(json!({ "uri": uri })),
            ));
        };
        let content = match std::str::from_utf8(&file.bytes) {
            Ok(text) => json!({ "uri": uri, "mimeType": file.mime_type, "text": text }),
            Err(_) => json!({
                "uri": uri,
                "mimeType": file.mime_type,
                "blob": base64::engine::general_purpose::STANDARD.encode(&file.bytes),
            }),
        };
        let mut result = json!({ "contents": [content] });
        self.add_hints(&mut result);
        let result: ReadResourceResult = from_json(mark_complete(result, context))?;
        Ok(ReadResourceResponse::Complete(result))
    }
}

/// Stdin that cancels a token when it reaches end of file (the client went away).
struct EofSignal<R> {
    inner: R,
    eof: CancellationToken,
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for EofSignal<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, std::task::Poll::Ready(Ok(()))) && buf.filled().len() == before {
            self.eof.cancel();
        }
        polled
    }
}

/// 2026-07-28 results must say `"resultType": "complete"`; older clients get none.
fn mark_complete(result: Value, context: &RequestContext<RoleServer>) -> Value {
    mark_complete_for(result, is_modern(context))
}

/// Whether the request comes from a 2026-07-28 client (no `initialize` handshake).
fn is_modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| !version.has_initialize())
}

/// [`mark_complete`] for a request whose era is already known.
/// The `prompts/get` result of a filled prompt, as the SDK's type; `modern` as for
/// [`PromptServer::prompts_page_of`].
pub(in crate::mcp) fn prompt_result(
    filled: crate::model::PromptMessages,
    modern: bool,
) -> Result<GetPromptResult, ErrorData> {
    from_json(mark_complete_for(
        serde_json::to_value(&filled).unwrap_or_default(),
        modern,
    ))
}

fn mark_complete_for(mut result: Value, modern: bool) -> Value {
    if modern {
        result["resultType"] = json!("complete");
    }
    result
}

fn invalid_params(error: ArgumentError) -> ErrorData {
    ErrorData::invalid_params(error.to_string(), None)
}

fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value)
        .map_err(|e| ErrorData::internal_error(format!("building the result: {e}"), None))
}

/// Lists the library's load problems in the result's `_meta`, where every client sees
/// them: 2026-07-28 clients get no log messages. On the first page only, at most
/// [`MAX_PROBLEMS_LISTED`], with how many were left out.
fn add_problems(result: &mut Value, library: &Library) {
    if library.diagnostics.is_empty() {
        return;
    }
    let listed: Vec<Value> = library
        .diagnostics
        .iter()
        .take(MAX_PROBLEMS_LISTED)
        .map(|problem| {
            serde_json::to_value(ServedProblem {
                file: problem.file.clone(),
                line: problem.line.map(|l| l as u64),
                error: problem.message.clone(),
            })
            .unwrap_or_default()
        })
        .collect();
    let mut meta = json!({ PROBLEMS_META_KEY: listed });
    let left_out = library
        .diagnostics
        .len()
        .saturating_sub(MAX_PROBLEMS_LISTED);
    if left_out > 0 {
        meta[PROBLEMS_LEFT_OUT_META_KEY] = json!(left_out);
    }
    result["_meta"] = meta;
}

fn resource_json(resource: &ServedResource) -> Value {
    json!({
        "uri": resource.uri,
        "name": resource.name,
        "description": format!("Embedded by {}", resource.embedded_by.join(", ")),
        "mimeType": resource.mime_type,
        "size": resource.text.len(),
    })
}

/// A skill entry of `skills/list` and `skills/get`: the `SKILL.md` URI, the front matter
/// verbatim, and every file with its digest and size.
fn skill_json(skill: &SkillDef) -> Value {
    let resources: Vec<Value> = skill
        .files
        .iter()
        .map(|file| {
            json!({
                "uri": skill.file_uri(file),
                "digest": file.digest,
                "size": file.bytes.len(),
            })
        })
        .collect();
    json!({
        "uri": skill.uri(),
        "frontmatter": Value::Object(skill.frontmatter.clone()),
        "resources": resources,
    })
}

/// Every skill file as `resources/list` offers it, each URI once (a nested skill's files
/// are its enclosing skill's too). A `SKILL.md` carries its skill's name and description.
fn skill_resources_json(library: &Library) -> Vec<Value> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for skill in library.skills() {
        for file in &skill.files {
            let uri = skill.file_uri(file);
            if !seen.insert(uri.clone()) {
                continue;
            }
            let mut value = match library.skill(&uri) {
                Some(owner) => json!({
                    "uri": uri,
                    "name": owner.name,
                    "description": owner.description,
                }),
                None => json!({
                    "uri": uri,
                    "name": file.path.rsplit('/').next().unwrap_or(&file.path),
                    "description": format!("A file of the skill {}", skill.name),
                }),
            };
            value["mimeType"] = json!(file.mime_type);
            value["size"] = json!(file.bytes.len());
            out.push(value);
        }
    }
    out
}

fn prompt_json(prompt: &PromptDef) -> Value {
    let arguments: Vec<Value> = prompt
        .arguments
        .iter()
        .map(|a| {
            let mut arg = json!({ "name": a.name, "required": a.required });
            if let Some(title) = &a.title {
                arg["title"] = json!(title);
            }
            if let Some(description) = &a.description {
                arg["description"] = json!(description);
            }
            arg
        })
        .collect();
    let mut value = json!({ "name": prompt.name, "arguments": arguments });
    if let Some(title) = &prompt.title {
        value["title"] = json!(title);
    }
    if let Some(description) = &prompt.description {
        value["description"] = json!(description);
    }
    value
}

impl ServerHandler for PromptServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities: ServerCapabilities = serde_json::from_value(json!({
            "prompts": { "listChanged": true },
            // The files prompts embed and the skills' files, to read; no templates, no
            // per-file subscriptions.
            "resources": { "listChanged": true },
            "completions": {},
            "logging": {},
            // Declared whatever is loaded now: a skill folder may appear on the next
            // reload, and capabilities hold for the whole session (an empty listing is
            // allowed).
            "extensions": { SKILLS_EXTENSION_ID: { "directoryRead": true } }
        }))
        .unwrap_or_default();
        ServerConfig::new(capabilities)
            .with_server_info(rmcp::model::Implementation::new("mcpick-serve", env!("CARGO_PKG_VERSION")).with_title("mcpick prompt library"))
            .with_instructions("Prompts from prompt files (VS Code .prompt.md, Claude Code commands, mcpick .mcpick.md), and skills from skill folders (NAME/SKILL.md), served by mcpick.")
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        self.prompts_page_of(&self.library.current(), cursor, is_modern(&context))
    }

    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        // The same scope as every other result; private should it ever not parse.
        let scope =
            serde_json::from_value(json!(self.hints.scope())).unwrap_or(CacheScope::Private);
        Ok(DiscoverResult::from_server_info(
            ServerHandler::supported_protocol_versions(self).into_owned(),
            ServerHandler::get_info(self),
        )
        .with_ttl_ms(self.hints.discover_ttl_ms)
        .with_cache_scope(scope))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let library = self.library.current();
        let mut resources: Vec<Value> = library.resources().iter().map(resource_json).collect();
        resources.extend(skill_resources_json(&library));
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        let (page, next) =
            crate::library::page_of(&resources, cursor, self.page_size).map_err(invalid_params)?;
        let mut result = json!({ "resources": page });
        self.add_hints(&mut result);
        if let Some(next) = next {
            result["nextCursor"] = json!(next);
        }
        from_json(mark_complete(result, &context))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        // Every resource is a file some prompt embeds, listed as it is: none is built from
        // a template. Still a list a client may keep as long as the others.
        let mut result = json!({ "resourceTemplates": [] });
        self.add_hints(&mut result);
        from_json(mark_complete(result, &context))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri.starts_with(SKILL_SCHEME) {
            return self.read_skill_file(&request.uri, &context);
        }
        let Some(resource) = self.library.current().resource(&request.uri) else {
            // 2026-07-28 clients get -32602 for this (rmcp maps it); legacy ones -32002.
            return Err(ErrorData::resource_not_found(
                format!(
                    "no resource {}: only the files the prompts embed are served",
                    request.uri
                ),
                Some(json!({ "uri": request.uri })),
            ));
        };
        let mut result = json!({
            "contents": [{
                "uri": resource.uri,
                "mimeType": resource.mime_type,
                "text": resource.text,
            }],
        });
        self.add_hints(&mut result);
        let result: ReadResourceResult = from_json(mark_complete(result, &context))?;
        Ok(ReadResourceResponse::Complete(result))
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let library = self.library.current();
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        // Whole entries per page: an entry's files are never split across pages.
        let (page, next) = crate::library::page_of(library.skills(), cursor, self.page_size)
            .map_err(invalid_params)?;
        let mut result = json!({ "skills": page.iter().map(skill_json).collect::<Vec<_>>() });
        self.add_hints(&mut result);
        if let Some(next) = next {
            result["nextCursor"] = json!(next);
        }
        from_json(mark_complete(result, &context))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let library = self.library.current();
        let Some(skill) = library.skill(&request.uri) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "no skill {} is served here: skills/list names the skills this server serves",
                    request.uri
                ),
                None,
            ));
        };
        let mut result = json!({ "skill": skill_json(skill) });
        self.add_hints(&mut result);
        from_json(mark_complete(result, &context))
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let library = self.library.current();
        let Some(children) = library.skill_directory(&request.uri) else {
            let what = if library.skill_file(&request.uri).is_some() {
                "is a file, not a folder: read it with resources/read"
            } else {
                "is no folder of a skill served here"
            };
            return Err(ErrorData::invalid_params(
                format!("{} {what}", request.uri),
                None,
            ));
        };
        let (page, next) =
            crate::library::page_of(&children, request.cursor.as_deref(), self.page_size)
                .map_err(invalid_params)?;
        let resources: Vec<Value> = page
            .iter()
            .map(|child| {
                let mut value = json!({
                    "uri": child.uri,
                    "name": child.name,
                    "mimeType": child.mime_type,
                });
                if let Some(size) = child.size {
                    value["size"] = json!(size);
                }
                value
            })
            .collect();
        let mut result = json!({ "resources": resources });
        self.add_hints(&mut result);
        if let Some(next) = next {
            result["nextCursor"] = json!(next);
        }
        from_json(mark_complete(result, &context))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let result = self.filled_prompt(request, is_modern(&context))?;
        Ok(GetPromptResponse::Complete(result))
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let Reference::Prompt(prompt) = &request.r#ref else {
            return Err(ErrorData::invalid_params(
                "this server has no resource templates to complete",
                None,
            ));
        };
        let completion = self
            .library
            .current()
            .complete(
                &prompt.name,
                &request.argument.name,
                &request.argument.value,
            )
            .map_err(invalid_params)?;
        from_json(mark_complete(json!({ "completion": completion }), &context))
    }

    #[allow(deprecated)] // logging/setLevel: legacy clients may still send it
    async fn set_level(
        &self,
        _request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // Only load problems are logged, at warning level; every level shows them.
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(
            SubscriptionFilter::builder()
                .prompts_list_changed()
                .resources_list_changed()
                .build(),
        )
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        // Over stdio, `StdioServer` also ends it when the client closes stdin. Only the
        // kinds of notice the client asked for are watched (and may be sent).
        let accepted = context.accepted();
        let wants_prompts = accepted.prompts_list_changed == Some(true);
        let wants_resources = accepted.resources_list_changed == Some(true);
        let mut changes = self.library.changes();
        changes.mark_unchanged();
        let mut resources = self.library.resource_changes();
        resources.mark_unchanged();
        loop {
            tokio::select! {
                _ = context.cancelled() => return Ok(()),
                // Over HTTP: the server is shutting down (the client gets the final result).
                _ = self.client_gone.cancelled() => return Ok(()),
                changed = changes.changed(), if wants_prompts => {
                    if changed.is_err() || context.sink().notify_prompt_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
                changed = resources.changed(), if wants_resources => {
                    if changed.is_err() || context.sink().notify_resource_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
            }
        }
    }

    #[allow(deprecated)] // logging is deprecated in 2026-07-28; legacy clients still read it
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let peer = context.peer;
        let library = self.library.clone();
        let mut changes = library.changes();
        changes.mark_unchanged();
        let mut problems = library.problem_changes();
        problems.mark_unchanged();
        let mut resources = library.resource_changes();
        resources.mark_unchanged();
        let gone = self.client_gone.clone();
        tokio::spawn(async move {
            // Each load problem is told once per session, when first seen.
            let mut told = std::collections::HashSet::new();
            if !tell_problems(&peer, &library, &mut told).await {
                return;
            }
            loop {
                tokio::select! {
                    _ = gone.cancelled() => return,
                    changed = problems.changed() => {
                        if changed.is_err() || !tell_problems(&peer, &library, &mut told).await {
                            return;
                        }
                    }
                    changed = changes.changed() => {
                        if changed.is_err() || peer.notify_prompt_list_changed().await.is_err() {
                            return;
                        }
                    }
                    changed = resources.changed() => {
                        if changed.is_err() || peer.notify_resource_list_changed().await.is_err() {
                            return;
                        }
                    }
                }
            }
        });
    }
}

/// Sends a legacy client the load problems it has not been told yet; false once it is gone.
#[allow(deprecated)] // logging is deprecated in 2026-07-28; legacy clients still read it
async fn tell_problems(
    peer: &rmcp::service::Peer<RoleServer>,
    library: &SharedLibrary,
    told: &mut std::collections::HashSet<String>,
) -> bool {
    for problem in library.current().problem_lines() {
        if told.insert(problem.clone()) {
            let param = rmcp::model::LoggingMessageNotificationParam::new(
                rmcp::model::LoggingLevel::Warning,
                json!(problem),
            );
            if peer.notify_logging_message(param).await.is_err() {
                return false;
            }
        }
    }
    true
}

/// [`PromptServer`] over stdio, where a `subscriptions/listen` ends as soon as the client
/// closes stdin.
///
/// Once its input ends, the SDK's service loop (rmcp 3.11 `serve_inner`) no longer takes
/// the notifications handlers send, nor tells them a send is done, yet it waits up to 5 s
/// for every running handler before it finishes. A listen handler runs long in
/// [`PromptServer::listen`], and before that it waits, inside the SDK, until its
/// `notifications/subscriptions/acknowledged` is sent: if stdin closes before the loop
/// has told it so, that wait never ends and `listen` is never called. So the whole request
/// is raced here against the client leaving, and then ends with the final listen result.
struct StdioServer(PromptServer);

impl Service<RoleServer> for StdioServer {
    async fn handle_request(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        if !matches!(request, ClientRequest::SubscriptionsListenRequest(_)) {
            return self.0.handle_request(request, context).await;
        }
        let id = context.id.clone();
        tokio::select! {
            // A refusal, ready at once, is still the answer.
            biased;
            answer = self.0.handle_request(request, context) => answer,
            _ = self.0.client_gone.cancelled() => {
                let mut result = SubscriptionsListenResult::complete(id);
                result
                    .meta
                    .set_server_info(ServerHandler::get_info(&self.0).server_info);
                Ok(ServerResult::SubscriptionsListenResult(result))
            }
        }
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.0.handle_notification(notification, context).await
    }

    fn get_info(&self) -> ServerConfig {
        ServerHandler::get_info(&self.0)
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        ServerHandler::supported_protocol_versions(&self.0)
    }
}

/// Serves over this process's stdin and stdout until the client closes stdin.
pub async fn serve_stdio(server: PromptServer) -> Result<(), String> {
    let (stdin, stdout) = rmcp::transport::stdio();
    let stdin = EofSignal {
        inner: stdin,
        eof: server.client_gone.clone(),
    };
    let gone = server.client_gone.clone();
    let running = StdioServer(server)
        .serve((stdin, stdout))
        .await
        .map_err(|e| format!("the client did not connect: {e}"))?;
    tokio::select! {
        finished = running.waiting() => finished
            .map(|_| ())
            .map_err(|e| format!("the server stopped: {e}")),
        // The client closed stdin: answers still being written get a moment, but never
        // the SDK's multi-second wait for a handler that is somehow still running.
        _ = async {
            gone.cancelled().await;
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        } => Ok(()),
    }
}
