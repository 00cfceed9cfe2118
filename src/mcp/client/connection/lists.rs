//! Listing: prompts and skills page by page, with their cache hints, and a skill's files loaded and checked.

use crate::cache::{Hints, Scope};
use crate::mcp::client::connection::{
    Page, all_pages, drop_skill_mirrors, drop_unreachable, read_messages, read_prompts_page,
    unexpected,
};
use crate::mcp::error::McpError;
use crate::mcp::{Connection, PromptList};
use crate::model::{EmbeddedResource, PromptArg, PromptInfo, PromptMessages, ServedProblem};
use rmcp::model::{ClientRequest, ListPromptsRequest, PaginatedRequestParams, ServerResult};

use super::connect::scope_of;
use crate::mcp::client::shapes::{self, ResultShape};

impl Connection {
    /// Every prompt, following `nextCursor` through all pages. Dropping the future cancels
    /// the request in flight. What had to be left out (see [`Connection::list_prompts_noting`])
    /// is only logged.
    pub async fn list_prompts(&self) -> Result<Vec<PromptInfo>, McpError> {
        let listed = self.list_prompts_noting().await?;
        for warning in &listed.warnings {
            tracing::warn!(target: "mcpick::server", server = %self.name, "{warning}");
        }
        Ok(listed.prompts)
    }

    /// Every prompt, as [`Connection::list_prompts`], and a warning for each thing left
    /// out: a prompt the server described wrongly (the rest of its page is kept), or the
    /// pages after a cursor the server repeated (the pages before it are kept).
    ///
    /// A server that declares the Skills extension (SEP-2640) has its skills listed too
    /// (`skills/list`), each a [`PromptInfo`] with its manifest in [`PromptInfo::skill`],
    /// after the prompts; a server without it is asked nothing more. A failing
    /// `skills/list` is a warning: the prompts are kept.
    pub async fn list_prompts_noting(&self) -> Result<PromptList, McpError> {
        let mut list = if self.details.prompts || !self.details.skills {
            self.list_only_prompts().await?
        } else {
            PromptList::default()
        };
        if self.details.skills {
            match self.list_skills_noting().await {
                Ok(skills) => {
                    list.prompts.extend(skills.prompts);
                    list.pages.extend(skills.pages);
                    list.warnings.extend(skills.warnings);
                    drop_skill_mirrors(&mut list);
                }
                Err(error) if self.details.prompts => list.warnings.push(
                    self.secrets
                        .mask(&format!(
                            "skills/list failed, so the server's skills are not in the menu: {error}"
                        ))
                        .into_owned(),
                ),
                Err(error) => return Err(error),
            }
        }
        Ok(list)
    }

    /// Every skill of `skills/list` (SEP-2640), through all pages: an entry that breaks
    /// the SEP's shape is left out with a warning naming it. Two skills of one name are
    /// told apart by their paths (`acme/billing/refunds`), as the SEP asks. Reads nothing
    /// of the skills' files: those are fetched only when one is picked.
    pub async fn list_skills_noting(&self) -> Result<PromptList, McpError> {
        let listed = all_pages("skills/list", ["skill", "skills"], |cursor, _| async move {
            let params = PaginatedRequestParams::default().with_cursor(cursor);
            let request = rmcp::model::ListSkillsRequest::with_param(params);
            let page = match self
                .request("skills/list", ClientRequest::ListSkillsRequest(request))
                .await?
            {
                ServerResult::ListSkillsResult(page) => {
                    serde_json::to_value(&page).map_err(|e| McpError::CannotRead {
                        what: "skills/list",
                        reason: e.to_string(),
                    })?
                }
                ServerResult::CustomResult(custom) if custom.0.get("skills").is_some() => custom.0,
                other => return Err(unexpected("skills/list", &other)),
            };
            shapes::note(|| shapes::of_raw("skills/list", &page, "skills"));
            let Some(entries) = page.get("skills").and_then(|s| s.as_array()) else {
                return Err(McpError::Malformed(
                    "skills/list answered without a `skills` list".into(),
                ));
            };
            let mut items = Vec::new();
            let mut skipped = Vec::new();
            for (at, entry) in entries.iter().enumerate() {
                match crate::mcp::skill_verify::read_entry(entry) {
                    Ok(manifest) => items.push(manifest),
                    Err(why) => {
                        skipped.push(format!("left out skill {} of skills/list: {why}", at + 1))
                    }
                }
            }
            Ok(Page {
                hints: self.hints_in(page.get("ttlMs"), page.get("cacheScope")),
                items,
                skipped,
                next: page
                    .get("nextCursor")
                    .and_then(|c| c.as_str())
                    .map(str::to_string),
            })
        })
        .await?;
        let names = crate::mcp::skill_verify::menu_names(&listed.items);
        let prompts = listed
            .items
            .into_iter()
            .zip(names)
            .map(|(manifest, name)| self.skill_info(manifest, name))
            .collect();
        Ok(PromptList {
            pages: listed.pages,
            prompts,
            warnings: listed
                .warnings
                .into_iter()
                .map(|w| self.secrets.mask(&w).into_owned())
                .collect(),
        })
    }

    /// The entry of the skill whose `SKILL.md` is `uri` (`skills/get`), listed or not: a
    /// skill given only by its URI is verified and loaded as a listed one is (the SEP). A
    /// server without the extension is asked nothing.
    pub async fn skill_by_uri(&self, uri: &str) -> Result<PromptInfo, McpError> {
        if !self.details.skills {
            return Err(McpError::Protocol(format!(
                "the server does not declare the Skills extension ({}), so it serves no \
                 skill {uri}",
                crate::mcp::skill_verify::SKILLS_EXTENSION
            )));
        }
        let request =
            rmcp::model::GetSkillRequest::new(rmcp::model::GetSkillRequestParams::new(uri));
        let value = match self
            .request("skills/get", ClientRequest::GetSkillRequest(request))
            .await?
        {
            ServerResult::GetSkillResult(result) => {
                serde_json::to_value(&result).map_err(|e| McpError::CannotRead {
                    what: "skills/get",
                    reason: e.to_string(),
                })?
            }
            ServerResult::CustomResult(custom) if custom.0.get("skill").is_some() => custom.0,
            other => return Err(unexpected("skills/get", &other)),
        };
        let entry = value.get("skill").cloned().unwrap_or_default();
        let manifest = crate::mcp::skill_verify::read_entry(&entry).map_err(|why| {
            McpError::Malformed(
                self.secrets
                    .mask(&format!("skills/get: {why}"))
                    .into_owned(),
            )
        })?;
        if manifest.uri != uri {
            return Err(McpError::Malformed(format!(
                "skills/get for {uri} answered the entry of {}",
                crate::text::one_line(&manifest.uri)
            )));
        }
        let name = manifest.name().to_string();
        Ok(self.skill_info(manifest, name))
    }

    /// A skill as a menu entry: named by its front matter, with one optional argument,
    /// the task sent after its instructions.
    pub(super) fn skill_info(
        &self,
        manifest: crate::model::skill_manifest::SkillManifest,
        name: String,
    ) -> PromptInfo {
        PromptInfo {
            server: self.name.clone(),
            name,
            title: None,
            description: self.mask(Some(manifest.description().to_string())),
            arguments: vec![PromptArg {
                name: crate::mcp::skill_verify::TASK_ARGUMENT.to_string(),
                title: Some("Task".to_string()),
                description: Some(
                    "what to apply the skill to, sent after its instructions (empty: none)"
                        .to_string(),
                ),
                required: false,
            }],
            skill: Some(Box::new(manifest)),
            mirrors_skill: None,
        }
    }

    /// Loads a picked skill: reads its `SKILL.md` (`resources/read`), checks its size,
    /// digest and front matter against `manifest`, then reads and checks each file of
    /// `attach` (paths relative to the skill's root, or URIs; only files the manifest
    /// lists are read). The messages: the instructions filled with `task` by `fill`, then
    /// the files as embedded resources. A file that fails is refused by name, and nothing
    /// of the skill is returned.
    ///
    /// A check that fails against `manifest` is tried once more against the server's
    /// current entry (`skills/get`) when that differs: a skill edited on disk since it was
    /// listed is loaded as it is now, verified against what the server lists now; bytes
    /// that match neither are refused.
    pub async fn load_skill(
        &self,
        manifest: &crate::model::skill_manifest::SkillManifest,
        task: Option<&str>,
        attach: &[String],
        fill: crate::mcp::skill_verify::SkillFill,
    ) -> Result<PromptMessages, McpError> {
        let refused = match self.load_skill_as(manifest, task, attach, fill).await? {
            Ok(messages) => return Ok(messages),
            Err(refused) => refused,
        };
        let current = match self.skill_by_uri(&manifest.uri).await {
            Ok(info) => info.skill,
            Err(_) => None,
        };
        match current {
            Some(current) if *current != *manifest => {
                let note = format!(
                    "skill {}: its files changed since it was listed ({}); loading it as the server lists it now",
                    crate::text::one_line(manifest.name()),
                    refused.advice()
                );
                let line = self.log.push("mcpick", &note);
                self.log.write_to_file(&self.name, &line);
                self.log.forward(line, &self.service.service().lines);
                self.load_skill_as(&current, task, attach, fill)
                    .await?
                    .map_err(|refused| McpError::SkillRefused(refused.advice()))
            }
            _ => Err(McpError::SkillRefused(refused.advice())),
        }
    }

    /// [`Connection::load_skill`] against one manifest: `Ok(Err(check))` when a file fails
    /// its check, `Err` when reading failed.
    pub(super) async fn load_skill_as(
        &self,
        manifest: &crate::model::skill_manifest::SkillManifest,
        task: Option<&str>,
        attach: &[String],
        fill: crate::mcp::skill_verify::SkillFill,
    ) -> Result<Result<PromptMessages, crate::mcp::skill_verify::SkillCheckError>, McpError> {
        use crate::mcp::skill_verify as skill;
        // An unlisted attachment is refused before anything is read.
        let attach_uris: Vec<String> = attach.iter().map(|p| manifest.resolve(p)).collect();
        for uri in &attach_uris {
            if manifest.files.is_some() && manifest.file(uri).is_none() {
                let error = skill::verify_file(manifest, uri, &[]).expect_err("unlisted");
                return Ok(Err(error));
            }
        }
        let contents = self.read_resource(&manifest.uri).await?;
        let checked = skill::resource_bytes(&manifest.uri, &contents)
            .and_then(|bytes| skill::verify_skill_md(manifest, &bytes));
        let (text, verification) = match checked {
            Ok(checked) => checked,
            Err(error) => return Ok(Err(error)),
        };
        let mut attachments = Vec::new();
        for uri in &attach_uris {
            let contents = self.read_resource(uri).await?;
            let checked = skill::resource_bytes(uri, &contents)
                .and_then(|bytes| skill::verify_file(manifest, uri, &bytes));
            let verification = match checked {
                Ok(verification) => verification,
                Err(error) => return Ok(Err(error)),
            };
            let resource = contents
                .iter()
                .find(|c| matches!(c, EmbeddedResource::Text { uri: u, .. } | EmbeddedResource::Blob { uri: u, .. } if u == uri))
                .or(contents.first())
                .cloned()
                .ok_or_else(|| McpError::Malformed(format!("{uri}: resources/read sent nothing")))?;
            attachments.push(skill::Attachment {
                resource,
                verification,
            });
        }
        let messages = skill::skill_messages(
            &self.name,
            manifest,
            &text,
            verification,
            attachments,
            task,
            fill,
        );
        // Verified on the bytes as sent; config secrets a server echoes are masked in what
        // is shown and exported, as in a prompt's messages.
        let mut value = serde_json::to_value(&messages).map_err(|e| McpError::CannotRead {
            what: "the skill's messages",
            reason: e.to_string(),
        })?;
        self.secrets.mask_json(&mut value);
        read_messages(value).map(Ok)
    }

    /// The prompts of `prompts/list`, through all pages (see [`Connection::list_prompts_noting`]).
    pub(super) async fn list_only_prompts(&self) -> Result<PromptList, McpError> {
        let listed = all_pages(
            "prompts/list",
            ["prompt", "prompts"],
            |cursor, number| async move {
                let params = PaginatedRequestParams::default().with_cursor(cursor);
                let request = ListPromptsRequest::with_param(params);
                match self
                    .request("prompts/list", ClientRequest::ListPromptsRequest(request))
                    .await?
                {
                    ServerResult::ListPromptsResult(page) => {
                        if number == 1 {
                            self.note_served_problems(page.meta.as_deref());
                        }
                        shapes::note(|| ResultShape {
                            method: "prompts/list",
                            result_type: page.result_type.as_ref().map(|t| t.as_str().to_string()),
                            ttl_ms: page.ttl_ms.map(serde_json::Value::from),
                            cache_scope: page
                                .cache_scope
                                .and_then(|scope| serde_json::to_value(scope).ok()),
                            names: page.prompts.iter().map(|p| Some(p.name.clone())).collect(),
                            next_cursor: page.next_cursor.clone(),
                        });
                        Ok(Page {
                            hints: self.hints(page.ttl_ms, page.cache_scope.map(scope_of)),
                            items: page
                                .prompts
                                .into_iter()
                                .map(|p| self.prompt_info(p))
                                .collect(),
                            skipped: Vec::new(),
                            next: page.next_cursor,
                        })
                    }
                    // A page the SDK cannot type (one prompt it cannot read spoils the whole
                    // page for it): read prompt by prompt, keeping the good ones.
                    ServerResult::CustomResult(custom) if custom.0.get("prompts").is_some() => {
                        shapes::note(|| shapes::of_raw("prompts/list", &custom.0, "prompts"));
                        if number == 1 {
                            let meta = custom.0.get("_meta").and_then(|m| m.as_object());
                            self.note_served_problems(meta);
                        }
                        let (prompts, skipped) = read_prompts_page(&custom.0, number)?;
                        Ok(Page {
                            hints: self.hints_in(custom.0.get("ttlMs"), custom.0.get("cacheScope")),
                            items: prompts.into_iter().map(|p| self.prompt_info(p)).collect(),
                            skipped,
                            next: custom
                                .0
                                .get("nextCursor")
                                .and_then(|c| c.as_str())
                                .map(str::to_string),
                        })
                    }
                    other => Err(unexpected("prompts/list", &other)),
                }
            },
        )
        .await?;
        let mut list = PromptList {
            pages: listed.pages,
            prompts: listed.items,
            warnings: listed.warnings,
        };
        drop_unreachable(&mut list);
        for warning in &mut list.warnings {
            *warning = self.secrets.mask(warning).into_owned();
        }
        Ok(list)
    }

    /// A page's cache hints, received now. A legacy server's hints count for nothing
    /// (its era has none: stale at once, private), whatever it sent.
    pub(super) fn hints(&self, ttl_ms: Option<u64>, scope: Option<Scope>) -> Option<Hints> {
        self.is_modern().then(|| Hints::now(ttl_ms, scope))
    }

    /// [`Connection::hints`] from a page the SDK could not type: its raw `ttlMs` (a negative
    /// one is 0) and `cacheScope` (anything but `public`/`private` is none given).
    pub(super) fn hints_in(
        &self,
        ttl_ms: Option<&serde_json::Value>,
        cache_scope: Option<&serde_json::Value>,
    ) -> Option<Hints> {
        let ttl = ttl_ms.and_then(serde_json::Value::as_i64);
        let scope = match cache_scope.and_then(|s| s.as_str()) {
            Some("public") => Some(Scope::Public),
            Some("private") => Some(Scope::Private),
            _ => None,
        };
        self.hints(ttl.map(|t| t.max(0) as u64), scope)
    }

    /// mcpick's view of a prompt, the server's texts masked.
    pub(super) fn prompt_info(&self, prompt: rmcp::model::Prompt) -> PromptInfo {
        PromptInfo {
            server: self.name.clone(),
            name: prompt.name,
            title: self.mask(prompt.title),
            description: self.mask(prompt.description),
            arguments: prompt
                .arguments
                .unwrap_or_default()
                .into_iter()
                .map(|a| PromptArg {
                    name: a.name,
                    title: self.mask(a.title),
                    description: self.mask(a.description),
                    required: a.required.unwrap_or(false),
                })
                .collect(),
            skill: None,
            mirrors_skill: prompt
                .meta
                .as_ref()
                .and_then(|meta| meta.get(crate::model::SKILL_PROMPT_META_KEY))
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned),
        }
    }

    /// Keeps the problems a served library lists on its first page; new ones go to the log
    /// of a 2026-07-28 server over HTTP. Not to a legacy one's (it sends them as log
    /// messages itself), nor to a stdio server's: `mcpick serve` writes each on stderr, which
    /// is in the log already, and the same problem twice reads as two.
    pub(super) fn note_served_problems(
        &self,
        meta: Option<&serde_json::Map<String, serde_json::Value>>,
    ) {
        let problems = crate::mcp::client::problems::read(meta);
        let to_log = self.is_modern() && self.child.is_none();
        let lines = self
            .served_problems
            .replace(problems, &self.secrets, &self.log, to_log);
        for line in lines {
            self.log.write_to_file(&self.name, &line);
            self.log.forward(line, &self.service.service().lines);
        }
    }

    /// Whether the server sent `notifications/prompts/list_changed` since it connected.
    pub fn heard_list_changed(&self) -> bool {
        (self.prompt_list_changes).load(std::sync::atomic::Ordering::Relaxed) > 0
    }

    /// The problems with its prompt files that a served library (`mcpick serve`) listed
    /// on the last `prompts/list`.
    pub fn served_problems(&self) -> Vec<ServedProblem> {
        self.served_problems.current()
    }
}
