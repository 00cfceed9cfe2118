//! How the app changes: `App::update` takes each message and returns the effects for the runner;
//! the files beside this one hold each screen's part of it.

use crate::app::{
    Action, App, CatalogMark, CommandStage, DRAFT_TICKS, Effect, Exit, FormDrafts, History, KeyMap,
    KeyScreen, LogsView, MenuInput, MenuState, Msg, Options, Overlay, Screen, ServerState,
    ServerStatus, areas, form, questions,
};

mod audio;
mod cached;
mod command;
mod export;
mod fetch;
mod files;
mod live_preview;
mod logs;
mod notices;
mod picker;
mod servers;
mod start;

use crate::app::logs::{filter_key, logs_action};
use crate::model::ServerId;
use crate::render;
use crossterm::event::{KeyCode, KeyEvent};
use std::collections::{BTreeMap, VecDeque};

impl App {
    /// A new app for `servers` (all connecting), with the remembered `history`.
    pub fn new(servers: Vec<ServerId>, options: Options, keys: KeyMap, history: History) -> App {
        let mut app = App {
            keys,
            options,
            servers: servers
                .into_iter()
                .map(|name| ServerStatus {
                    name,
                    state: ServerState::Connecting,
                })
                .collect(),
            prompts: BTreeMap::new(),
            catalog_marks: BTreeMap::new(),
            live_listed_ms: BTreeMap::new(),
            state_notices: BTreeMap::new(),
            from_catalog_next: Default::default(),
            refreshing: Default::default(),
            wall_ms: 0,
            server_sources: BTreeMap::new(),
            offer: Vec::new(),
            waiting: Vec::new(),
            sign_ins: BTreeMap::new(),
            signing_in: Default::default(),
            restarted_by_hand: Default::default(),
            refresh_round: None,
            input_servers: BTreeMap::new(),
            retrying: Vec::new(),
            menu: MenuState::new(""),
            screen: Screen::Picker,
            overlay: None,
            logs: BTreeMap::new(),
            history,
            form_drafts: FormDrafts::default(),
            flash: None,
            queued_notices: VecDeque::new(),
            notices: VecDeque::new(),
            tick: 0,
            now_ms: 0,
            size: (80, 24),
            next_id: 0,
            quit_armed: false,
            draft_due: None,
            draft_saved: false,
            exit: None,
            pending_start: None,
            exported_any: false,
            preview_toggled: BTreeMap::new(),
            playing: None,
        };
        app.pending_start = Some(app.options.start.clone());
        let query = app.options.start.query.clone();
        let (menu, scope) = app.menu_with_scope();
        menu.set_query(&query, scope);
        app
    }

    /// The bodies on screen laid out with code left plain: their whole layouts, to be
    /// computed off the loop (the runner asks after each frame, since drawing lays out
    /// too). Each layout is asked for once.
    pub fn layouts_wanted(&self) -> Vec<Effect> {
        self.bodies_on_screen()
            .into_iter()
            .flat_map(|(layout, content)| {
                layout
                    .wanted()
                    .into_iter()
                    .map(move |key| Effect::LayOutBody {
                        body: layout.id(),
                        key,
                        content: Box::new(content.clone()),
                    })
            })
            .collect()
    }

    /// Puts a body's whole layout in place, if the body and that layout are still there.
    fn body_laid_out(&mut self, body: u64, key: render::rows::RowsKey, rows: render::rows::Rows) {
        for (layout, _) in self.bodies_on_screen() {
            if layout.id() == body {
                layout.finished(key, std::sync::Arc::clone(&rows));
            }
        }
    }

    /// The message bodies the screen lays out, with their content: the review's messages,
    /// or the form's live preview.
    fn bodies_on_screen(&self) -> Vec<(&render::rows::BodyLayout, &crate::model::Content)> {
        match &self.screen {
            Screen::Review(review) => review
                .items
                .iter()
                .map(|item| (item.layout(), &item.message().content))
                .collect(),
            Screen::Form(form) => match &form.preview.answer {
                Some(crate::app::live_preview::PreviewAnswer {
                    outcome: crate::app::live_preview::PreviewOutcome::Messages(messages),
                    layouts,
                    ..
                }) => layouts
                    .iter()
                    .zip(&messages.messages)
                    .map(|(layout, message)| (layout, &message.content))
                    .collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// Whether something animates or waits on time, so the runner should keep ticking.
    pub fn wants_ticks(&self) -> bool {
        // (A notice that waits for a key needs no clock.)
        self.flash.as_ref().is_some_and(|f| f.until != u64::MAX)
            || !self.queued_notices.is_empty()
            || self.draft_due.is_some()
            || matches!(&self.screen, Screen::Form(form) if form.unsent_due.is_some())
            || self
                .servers
                .iter()
                .any(|s| s.state == ServerState::Connecting)
            || !self.refreshing.is_empty()
            || match &self.screen {
                Screen::Form(form) => {
                    form.fetching.is_some()
                        || form.completion_due.is_some()
                        || form.preview.wants_ticks()
                        || form
                            .command
                            .as_ref()
                            .is_some_and(|c| matches!(c.stage, CommandStage::Running(_)))
                }
                Screen::Questions(q) => q.fetching.is_some(),
                Screen::Review(r) => r.reading.is_some(),
                Screen::Picker => false,
            }
    }

    /// Whether the screen shows an age by the wall clock that must keep up while nothing
    /// happens: the details pane of a prompt whose rows came from the catalog, or were kept
    /// stale ("listed 5 s ago; fresh for 54 s more"). The runner redraws each second then.
    pub fn shows_catalog_age(&self) -> bool {
        // The form's live preview says how old its answer is, likewise.
        if let Screen::Form(form) = &self.screen {
            return self.overlay.is_none() && form.preview.enabled && form.preview.answer.is_some();
        }
        if !matches!(self.screen, Screen::Picker) || self.overlay.is_some() {
            return false;
        }
        let shown = self.selected_entry().is_some_and(|entry| {
            self.catalog_marks
                .get(&entry.prompt.server)
                .is_some_and(|mark| match mark {
                    CatalogMark::Cached { .. } => true,
                    CatalogMark::Stale { listed_ms, .. } => listed_ms.is_some(),
                })
        });
        shown && !areas::menu_details(self).is_empty()
    }

    /// The key table that applies now.
    pub fn key_screen(&self) -> KeyScreen {
        match (&self.overlay, &self.screen) {
            (Some(Overlay::Logs(_)), _) => KeyScreen::Logs,
            (Some(Overlay::Inputs(_)), _) => KeyScreen::Inputs,
            (_, Screen::Picker) => KeyScreen::Picker,
            (_, Screen::Form(f)) if f.files.is_some() => KeyScreen::Files,
            (_, Screen::Form(f)) if f.command.is_some() => KeyScreen::Command,
            (_, Screen::Form(_)) => KeyScreen::Form,
            (_, Screen::Questions(_)) => KeyScreen::Questions,
            (_, Screen::Review(r)) if r.is_typing() => KeyScreen::Editor,
            (_, Screen::Review(_)) => KeyScreen::Review,
        }
    }

    fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Applies one message; returns the work it asks for.
    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        let typed = matches!(msg, Msg::Key(_) | Msg::Paste(_) | Msg::Edited(_));
        let tick = matches!(msg, Msg::Tick);
        if typed {
            self.user_acted_on_notice();
            // The user took over before the servers answered: the start request is void.
            self.pending_start = None;
            // …and a copy still under way no longer leaves the review.
            if let Screen::Review(review) = &mut self.screen {
                review.leave_after_copy = false;
            }
        }
        let screen_before = std::mem::discriminant(&self.screen);
        let preview_before = self.preview_in_flight();
        let mut effects = self.update_screens(msg);
        effects.extend(self.settle_preview(preview_before));
        if typed && std::mem::discriminant(&self.screen) != screen_before {
            // A notice the user saw about the screen they left no longer applies (it stays
            // in the logs pane); one the key brought, or one waiting its turn, still shows.
            self.drop_seen_notice();
        }
        self.settle_refresh_round();
        if self.pending_start.is_some() {
            effects.extend(self.settle_start());
        }
        // Audio plays only while its review is on screen.
        if self.playing.is_some() && !matches!(self.screen, Screen::Review(_)) {
            effects.extend(self.stop_audio());
        }
        // Remember where the list was drawn from: the next draw scrolls only from there.
        if matches!(self.screen, Screen::Picker) {
            let height = areas::menu_list(self).height as usize;
            self.menu.top = areas::first_row(self, height);
        }
        // …and where the review's messages and preview were drawn from, likewise.
        // (A tick moves nothing there, and the preview's export is not rendered for it.)
        if let Screen::Review(review) = &mut self.screen
            && !tick
        {
            review.settle();
            // The pictures the review shows now, decoded once per image and width.
            effects.extend(review.wanted_pictures(self.options.graphics, &mut self.next_id));
        }
        // A form's typing is kept shortly after it stops, so a crash loses none of it.
        if typed && let Screen::Form(form) = &mut self.screen {
            form.unsent_due = Some(self.tick + DRAFT_TICKS);
        }
        // A review with edits is saved as a draft shortly after the typing stops, and its
        // draft goes once the review is left (exported or discarded).
        match &self.screen {
            Screen::Review(_) if typed => {
                self.draft_due = Some(self.tick + DRAFT_TICKS);
            }
            Screen::Review(_) => {}
            _ if self.draft_saved => {
                self.draft_saved = false;
                self.draft_due = None;
                effects.push(Effect::DeleteDraft);
            }
            _ => self.draft_due = None,
        }
        effects
    }

    fn update_screens(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::Tick => self.on_tick(),
            // The runner set `wall_ms`; the draw that follows shows the ages it makes.
            Msg::Clock => Vec::new(),
            // The cached rows know they were laid out without it; the next draw redoes them.
            Msg::HighlighterReady => Vec::new(),
            // `base = "auto"` chooses once: by the first background told (the start's, or
            // a late answer when the start got none).
            Msg::Background(luminance) => {
                if let Some(light) = self.options.light_theme.take() {
                    let auto = crate::config::ConfiguredTheme {
                        colors: self.options.theme,
                        light_variant: Some(light),
                    };
                    self.options.theme = auto.for_background(Some(luminance));
                }
                Vec::new()
            }
            Msg::BodyLaidOut { body, key, rows } => {
                self.body_laid_out(body, key, rows);
                Vec::new()
            }
            Msg::Key(key) => self.on_key(key),
            Msg::Paste(text) => self.on_paste(&text),
            Msg::Resize(columns, rows) => {
                self.size = (columns, rows);
                if let Screen::Review(review) = &mut self.screen {
                    review.screen = (columns, rows);
                }
                Vec::new()
            }
            Msg::WheelUp | Msg::WheelDown if matches!(self.overlay, Some(Overlay::Help { .. })) => {
                let up = matches!(msg, Msg::WheelUp);
                self.on_action(if up { Action::Up } else { Action::Down })
            }
            Msg::WheelUp | Msg::WheelDown => {
                let up = matches!(msg, Msg::WheelUp);
                match &mut self.screen {
                    // In a review the wheel scrolls the message, like a pager.
                    Screen::Review(review) if self.overlay.is_none() && !review.is_typing() => {
                        review.wheel(up);
                        Vec::new()
                    }
                    _ => self.on_action(if up { Action::Up } else { Action::Down }),
                }
            }
            Msg::Click {
                column,
                row,
                at_ms,
                target,
            } => self.on_click(column, row, at_ms, target),
            Msg::Mcp(event) => self.on_mcp(event),
            Msg::Completed { id, result } => {
                if let Screen::Form(form) = &mut self.screen {
                    form.on_completed(id, result, &self.history);
                }
                Vec::new()
            }
            Msg::Fetched { id, result } => self.on_fetched(id, result),
            Msg::ResourceRead { id, result } => {
                if let Screen::Review(review) = &mut self.screen {
                    match review.on_resource_read(id, result) {
                        Ok(Some(note)) => self.notify(note),
                        Ok(None) => {}
                        Err(error) => self.warn(error),
                    }
                }
                Vec::new()
            }
            Msg::Copied { result, leave } => self.on_copied(result, leave),
            Msg::AudioEnded { id, result } => self.on_audio_ended(id, result),
            Msg::Saved {
                purpose,
                path,
                result,
            } => self.on_saved(purpose, path, result),
            Msg::SourcesAdded(result) => self.on_sources_added(result),
            Msg::InputsNeeded(waiting) => {
                self.on_inputs_needed(waiting);
                Vec::new()
            }
            Msg::FilesListed { id, list } => {
                if let Screen::Form(form) = &mut self.screen
                    && let Some(picker) = form.files.as_mut()
                {
                    picker.on_listed(id, list);
                }
                Vec::new()
            }
            Msg::FileRead { id, result } => self.on_file_read(id, result),
            Msg::CommandRan { id, outcome } => self.on_command_ran(id, outcome),
            Msg::ImageDecoded { id, result } => {
                if let Screen::Review(review) = &mut self.screen {
                    review.pictures.on_decoded(id, result);
                }
                Vec::new()
            }
            Msg::SignInUrl { server, url } => self.on_sign_in_url(server, url),
            Msg::SignedIn { server, result } => self.on_signed_in(server, result),
            Msg::Edited(result) => {
                match result {
                    Ok(text) => match &mut self.screen {
                        Screen::Form(form) => {
                            return form.set_focused_value(&text, &self.history, self.tick);
                        }
                        Screen::Questions(q) => q.set_focused_text(&text),
                        Screen::Review(review) => review.set_edited_text(text),
                        _ => {}
                    },
                    Err(error) => self.warn(error),
                }
                Vec::new()
            }
        }
    }

    fn on_tick(&mut self) -> Vec<Effect> {
        self.tick += 1;
        self.advance_notices();
        if let Some(effect) = self.draft_effect() {
            return vec![effect];
        }
        let mut effects = Vec::new();
        if let Screen::Form(form) = &mut self.screen
            && form.unsent_due.is_some_and(|due| self.tick >= due)
        {
            form.unsent_due = None;
            effects.extend(self.keep_unsent());
        }
        let tick = self.tick;
        let id = self.next_id + 1;
        if let Screen::Form(form) = &mut self.screen
            && let Some(effect) = form.due_completion(tick, id, &self.servers)
        {
            self.next_id = id;
            effects.push(effect);
        }
        effects
    }

    fn on_paste(&mut self, text: &str) -> Vec<Effect> {
        if let Some(Overlay::Inputs(prompt)) = &mut self.overlay {
            prompt.paste(text);
            return Vec::new();
        }
        if self.overlay.is_some() {
            return Vec::new();
        }
        let tick = self.tick;
        match &mut self.screen {
            Screen::Picker => self.menu_update(MenuInput::Paste(text.to_string())),
            Screen::Form(form) => {
                if let Some(picker) = form.files.as_mut() {
                    picker.paste(text);
                    return Vec::new();
                }
                if let Some(prompt) = form.command.as_mut() {
                    prompt.paste(text);
                    return Vec::new();
                }
                form.paste(text, tick)
            }
            Screen::Questions(q) => {
                q.paste(text);
                Vec::new()
            }
            Screen::Review(review) => {
                review.paste(text);
                Vec::new()
            }
        }
    }

    fn on_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let screen = self.key_screen();
        let action = self.keys.action(screen, &key);
        if action != Some(Action::Quit) {
            self.quit_armed = false;
        }
        if screen == KeyScreen::Picker && self.overlay.is_none() && self.menu.takes_typed(&key) {
            return self.menu_update(MenuInput::Type(key));
        }
        if let Some(Overlay::Logs(view)) = &mut self.overlay
            && view.editing_filter
            && filter_key(view, key)
        {
            return Vec::new();
        }
        if let Some(Overlay::Help { scroll }) = &mut self.overlay {
            // Arrows and pages scroll a help taller than the screen; any other key closes it.
            match key.code {
                KeyCode::Up | KeyCode::Char('k') => *scroll = scroll.saturating_sub(1),
                KeyCode::Down | KeyCode::Char('j') => *scroll = scroll.saturating_add(1),
                KeyCode::PageUp => *scroll = scroll.saturating_sub(10),
                KeyCode::PageDown | KeyCode::Char(' ') => *scroll = scroll.saturating_add(10),
                _ => self.overlay = None,
            }
            return Vec::new();
        }
        match action {
            Some(action) => self.on_action(action),
            None => self.on_unbound_key(key),
        }
    }

    fn on_unbound_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if let Some(Overlay::Inputs(prompt)) = &mut self.overlay {
            prompt.type_key(key);
            return Vec::new();
        }
        if self.overlay.is_some() {
            return Vec::new();
        }
        let tick = self.tick;
        match &mut self.screen {
            Screen::Picker => self.menu_update(MenuInput::Type(key)),
            Screen::Form(form) => {
                if let Some(picker) = form.files.as_mut() {
                    picker.type_key(key);
                    return Vec::new();
                }
                if let Some(prompt) = form.command.as_mut() {
                    prompt.type_key(key);
                    return Vec::new();
                }
                form.type_key(key, &self.history, tick)
            }
            Screen::Questions(q) => {
                q.type_key(key);
                Vec::new()
            }
            Screen::Review(review) => {
                let outcome = review.type_key(key);
                self.review_outcome(outcome)
            }
        }
    }

    /// Runs an action of the current screen.
    pub fn on_action(&mut self, action: Action) -> Vec<Effect> {
        match action {
            Action::Quit => {
                // Text still in the editor counts as an edit.
                if let Screen::Review(review) = &mut self.screen {
                    review.finish_edit();
                }
                let edited = matches!(&self.screen, Screen::Review(r) if r.has_changes());
                if edited && !self.quit_armed {
                    self.quit_armed = true;
                    self.warn("You edited these messages: quit again to leave without exporting them (Enter accepts, s saves).");
                } else {
                    self.exit = Some(Exit::Quit);
                    // A form's typing is kept for the next run.
                    return self.keep_unsent().into_iter().collect();
                }
                return Vec::new();
            }
            // Whatever is open (the inputs prompt too): the terminal goes back as it is.
            Action::Suspend => return vec![Effect::Suspend],
            _ if matches!(self.overlay, Some(Overlay::Inputs(_))) => {
                return self.inputs_action(action);
            }
            Action::Help => {
                self.overlay = Some(Overlay::Help { scroll: 0 });
                return Vec::new();
            }
            Action::Up | Action::Down if matches!(self.overlay, Some(Overlay::Help { .. })) => {
                if let Some(Overlay::Help { scroll }) = &mut self.overlay {
                    *scroll = if action == Action::Up {
                        scroll.saturating_sub(1)
                    } else {
                        scroll.saturating_add(1)
                    };
                }
                return Vec::new();
            }
            Action::Logs => {
                self.overlay = Some(Overlay::Logs(LogsView::default()));
                return Vec::new();
            }
            _ => {}
        }
        if let Some(Overlay::Logs(view)) = &mut self.overlay {
            // Back first drops a kept filter, then closes the pane.
            if action == Action::Back && !view.filter.is_empty() {
                view.filter.clear();
                view.scroll_from_bottom = 0;
                return Vec::new();
            }
            logs_action(view, action, &self.logs, &self.servers, &self.notices);
            if action == Action::Back {
                self.overlay = None;
            }
            return Vec::new();
        }
        match self.key_screen() {
            KeyScreen::Files => return self.file_picker_action(action),
            KeyScreen::Command => return self.command_prompt_action(action),
            KeyScreen::Form if action == Action::FromFile => return self.open_file_picker(),
            KeyScreen::Form
                if matches!(
                    action,
                    Action::LivePreview | Action::PageUp | Action::PageDown
                ) =>
            {
                return self.preview_action(action).unwrap_or_default();
            }
            KeyScreen::Form if action == Action::FromCommand => {
                return self.open_command_prompt();
            }
            _ => {}
        }
        let tick = self.tick;
        match &mut self.screen {
            Screen::Picker => self.picker_action(action),
            Screen::Form(form) => match form.action(action, &self.history, tick) {
                form::Outcome::Effects(effects) => effects,
                form::Outcome::Back => {
                    // What was typed and not sent is kept for the next time it opens.
                    let kept = self.keep_unsent();
                    self.screen = Screen::Picker;
                    kept.into_iter().collect()
                }
                form::Outcome::Submit => self.submit_form(),
            },
            Screen::Questions(q) => match q.action(action) {
                questions::Outcome::Nothing => Vec::new(),
                questions::Outcome::Message(text) => {
                    self.warn(text);
                    Vec::new()
                }
                questions::Outcome::Answer(answers) => self.answer_questions(answers),
                questions::Outcome::CancelFetch(id) => vec![Effect::CancelFetch { id }],
            },
            Screen::Review(review) => {
                // Esc stops the audio first; leaving the review stops it too.
                if action == Action::Back && self.playing.is_some() && !review.is_typing() {
                    return self.stop_audio();
                }
                let outcome = review.action(action, &self.options);
                self.review_outcome(outcome)
            }
        }
    }
}
