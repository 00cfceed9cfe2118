//! `update` tests of the review: scrolling with context, paging, folding, undo and redo,
//! the preview's keys, and control characters in the editor and the export.

use super::review::ViewRow;
use super::tests::{app_in_review, ctrl, key, messages, type_text};
use super::*;
use crate::mcp::GetOutcome;
use crate::model::{Content, PromptMessages, Role};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn review(app: &App) -> &ReviewState {
    match &app.screen {
        Screen::Review(review) => review,
        other => panic!("expected the review, got {other:?}"),
    }
}

fn alt(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::ALT))
}

/// The review of `messages` on a `columns` × `rows` terminal.
pub(crate) fn review_of(messages: PromptMessages, columns: u16, rows: u16) -> App {
    let mut app = app_in_review();
    app.update(Msg::Resize(columns, rows));
    if let Screen::Review(review) = &mut app.screen {
        let form = review.form.clone();
        let mut fresh = ReviewState::new(
            form,
            review.arguments.clone(),
            messages,
            crate::export::Format::Markdown,
        );
        fresh.screen = (columns, rows);
        **review = fresh;
    }
    app
}

/// 200 messages, one line each but every seventh of twelve lines.
pub(crate) fn two_hundred() -> PromptMessages {
    let texts: Vec<String> = (1..=200)
        .map(|n| {
            if n % 7 == 0 {
                (1..=12)
                    .map(|l| format!("message {n} line {l}\n"))
                    .collect()
            } else {
                format!("message {n}")
            }
        })
        .collect();
    let pairs: Vec<(Role, &str)> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let role = if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            };
            (role, t.as_str())
        })
        .collect();
    messages(&pairs)
}

#[test]
fn moving_down_200_messages_keeps_the_one_before_in_view() {
    for (columns, rows) in [(120, 40), (80, 24), (80, 16)] {
        let mut app = review_of(two_hundred(), columns, rows);
        for _ in 0..199 {
            app.update(key(KeyCode::Char('j')));
            let r = review(&app);
            let view = r.messages_view();
            assert!(
                view.shows_header(r.selected) && view.shows_header(r.selected - 1),
                "at {columns}×{rows}, #{} selected: #{} is out of view (rows {}..{})",
                r.selected + 1,
                r.selected,
                view.top,
                view.top + view.height
            );
        }
        assert_eq!(review(&app).selected, 199);
        // And back up: the one after stays in view.
        for _ in 0..198 {
            app.update(key(KeyCode::Char('k')));
            let r = review(&app);
            let view = r.messages_view();
            assert!(
                view.shows_header(r.selected) && view.shows_header(r.selected + 1),
                "at {columns}×{rows}, #{} selected going up: #{} is out of view",
                r.selected + 1,
                r.selected + 2
            );
        }
    }
}

#[test]
fn end_shows_a_full_last_page() {
    let mut app = review_of(two_hundred(), 120, 40);
    app.update(key(KeyCode::Char('G')));
    let r = review(&app);
    assert_eq!(r.selected, 199);
    let view = r.messages_view();
    assert_eq!(
        view.visible().len(),
        view.height,
        "no empty rows at the end"
    );
    assert_eq!(view.top + view.height, view.rows.len());
    assert!(view.shows_header(198));
    // What draw shows is what update laid out.
    assert_eq!(r.top, view.top);
    app.update(key(KeyCode::Char('g')));
    assert_eq!(review(&app).messages_view().top, 0);
}

#[test]
fn page_down_moves_a_page_of_messages_and_page_up_comes_back() {
    let mut app = review_of(two_hundred(), 120, 40);
    let before = review(&app).messages_view();
    app.update(key(KeyCode::PageDown));
    let r = review(&app);
    // The message selected was below the screen before the page.
    assert!(r.selected > 1);
    assert!(!before.shows_header(r.selected));
    let view = r.messages_view();
    assert!(
        view.top > before.top + view.height / 2,
        "{} → {} of {} rows, #{} selected",
        before.top,
        view.top,
        view.height,
        r.selected + 1
    );
    assert!(view.shows_header(r.selected - 1));
    let paged = r.selected;
    app.update(key(KeyCode::PageUp));
    assert!(review(&app).selected < paged);
    app.update(key(KeyCode::PageUp));
    app.update(key(KeyCode::PageUp));
    assert_eq!(review(&app).selected, 0);
}

#[test]
fn page_down_scrolls_a_long_message_then_moves_on() {
    let long: String = (1..=100).map(|n| format!("line {n}\n")).collect();
    let mut app = review_of(
        messages(&[(Role::User, &long), (Role::Assistant, "next")]),
        80,
        24,
    );
    let max = review(&app).messages_view().max_scroll;
    assert!(max > 50);
    let mut scrolls = vec![review(&app).scroll];
    while review(&app).selected == 0 {
        app.update(key(KeyCode::PageDown));
        scrolls.push(review(&app).scroll);
        assert!(
            scrolls.len() < 20,
            "PgDn never left the message: {scrolls:?}"
        );
    }
    assert!(scrolls.windows(2).all(|w| w[0] < w[1] || w[1] == 0));
    assert_eq!(
        scrolls[scrolls.len() - 2],
        max,
        "the last page before moving on"
    );
    assert_eq!(review(&app).selected, 1);
    // PgUp goes back into the long message from its start.
    app.update(key(KeyCode::PageUp));
    assert_eq!(review(&app).selected, 0);
}

#[test]
fn unselected_messages_are_whole_when_they_fit_and_folded_when_not() {
    let text: String = (1..=6).map(|n| format!("line {n}\n")).collect();
    let few = messages(&[(Role::User, &text), (Role::Assistant, &text)]);
    let app = review_of(few, 120, 40);
    let view = review(&app).messages_view();
    assert!(!view.rows.iter().any(|r| matches!(r, ViewRow::Folded(_))));
    assert_eq!(view.rows.len(), 2 * 7 + 1);
    let pairs: Vec<(Role, &str)> = (0..10).map(|_| (Role::User, text.as_str())).collect();
    let app = review_of(messages(&pairs), 120, 40);
    let view = review(&app).messages_view();
    assert_eq!(
        view.rows
            .iter()
            .filter(|r| matches!(r, ViewRow::Folded(3)))
            .count(),
        9,
        "every unselected message folded to three lines and `… 3 more lines`"
    );
}

#[test]
fn undo_brings_a_deleted_message_back_and_keeps_the_other_edits() {
    let mut app = app_in_review();
    app.update(key(KeyCode::Char('r')));
    app.update(key(KeyCode::Char('j')));
    app.update(key(KeyCode::Char('d')));
    assert_eq!(review(&app).items.len(), 1);
    app.update(ctrl('z'));
    let r = review(&app);
    assert_eq!(r.items.len(), 2);
    assert_eq!(r.items[1].message().content, Content::text("Sunny."));
    assert_eq!(r.selected, 1, "the restored message is selected");
    assert_eq!(
        r.items[0].message().role,
        Role::Assistant,
        "the role change stays"
    );
    // Undo again takes back the role change; redo does both again.
    app.update(ctrl('_'));
    assert_eq!(review(&app).items[0].message().role, Role::User);
    app.update(alt(KeyCode::Char('_')));
    assert_eq!(review(&app).items[0].message().role, Role::Assistant);
    app.update(alt(KeyCode::Char('_')));
    assert_eq!(review(&app).items.len(), 1);
    app.update(alt(KeyCode::Char('_')));
    assert_eq!(review(&app).items.len(), 1, "nothing more to redo");
    // A new edit drops what could be redone.
    app.update(ctrl('z'));
    app.update(key(KeyCode::Char('r')));
    app.update(alt(KeyCode::Char('_')));
    assert_eq!(review(&app).items.len(), 2);
}

#[test]
fn restore_all_moves_and_adds_are_undoable_and_an_editing_session_is_one_step() {
    let mut app = app_in_review();
    app.update(key(KeyCode::Char('e')));
    type_text(&mut app, " Hot?");
    app.update(key(KeyCode::Esc));
    app.update(alt(KeyCode::Down));
    app.update(key(KeyCode::Char('a')));
    type_text(&mut app, "added");
    app.update(key(KeyCode::Esc));
    let edited = review(&app).current();
    assert_eq!(edited.messages.len(), 3);
    app.update(key(KeyCode::Char('U')));
    assert!(!review(&app).has_changes());
    app.update(ctrl('z'));
    assert_eq!(review(&app).current(), edited, "U undone");
    app.update(ctrl('z'));
    assert_eq!(
        review(&app).items.len(),
        2,
        "the add and its text: one step"
    );
    app.update(ctrl('z'));
    assert_eq!(
        review(&app).items[0].message().content,
        Content::text("Weather in New York? Hot?"),
        "the move undone"
    );
    app.update(ctrl('z'));
    assert!(!review(&app).has_changes(), "the editing session: one step");
    app.update(ctrl('z'));
    assert!(!review(&app).has_changes());
}

#[test]
fn undo_keeps_at_most_a_hundred_steps() {
    let mut app = app_in_review();
    for _ in 0..150 {
        app.update(key(KeyCode::Char('r')));
    }
    for _ in 0..150 {
        app.update(ctrl('z'));
    }
    // 150 toggles, 100 undone: 50 left, an even number, so the role is as sent.
    assert_eq!(review(&app).items[0].message().role, Role::User);
    app.update(ctrl('z'));
    assert_eq!(review(&app).items[0].message().role, Role::User);
}

#[test]
fn the_editor_shows_control_characters_as_the_review_and_keeps_their_bytes() {
    let raw = "\u{1b}[31mred\u{1b}[0m\tend";
    let mut app = review_of(messages(&[(Role::User, raw)]), 100, 30);
    app.update(key(KeyCode::Char('e')));
    let shown = review(&app).editor.as_ref().unwrap().lines().join("\n");
    assert_eq!(shown, "␛[31mred␛[0m\tend");
    app.update(key(KeyCode::Esc));
    assert!(
        !review(&app).has_changes(),
        "an untouched text keeps its bytes"
    );
    app.update(key(KeyCode::Char('e')));
    type_text(&mut app, "!");
    app.update(key(KeyCode::Esc));
    assert_eq!(
        review(&app).items[0].message().content,
        Content::text(format!("{raw}!"))
    );
}

fn copies(effects: &[Effect]) -> bool {
    effects.iter().any(|e| matches!(e, Effect::Copy { .. }))
}

#[test]
fn exporting_control_characters_asks_once_and_x_strips_them() {
    let raw = "\u{1b}[31mred\u{1b}[0m";
    let mut app = review_of(messages(&[(Role::User, raw)]), 100, 30);
    let effects = app.update(key(KeyCode::Char('y')));
    assert!(!copies(&effects), "the first copy asks first");
    let notice = app.flash.as_ref().unwrap().text.clone();
    assert!(notice.contains("2 control characters"), "{notice}");
    assert!(notice.contains("y again") && notice.contains("x strips"));
    assert!(copies(&app.update(key(KeyCode::Char('y')))));
    // Asked once: the next copy goes at once.
    assert!(copies(&app.update(key(KeyCode::Char('y')))));

    let mut app = review_of(messages(&[(Role::User, raw)]), 100, 30);
    app.update(key(KeyCode::Char('y')));
    let effects = app.update(key(KeyCode::Char('x')));
    assert!(copies(&effects), "x strips, then does the copy asked for");
    assert_eq!(
        review(&app).items[0].message().content,
        Content::text("red")
    );
    app.update(ctrl('z'));
    assert_eq!(review(&app).items[0].message().content, Content::text(raw));
    // Another key in between drops the question.
    app.update(key(KeyCode::Char('y')));
    app.update(key(KeyCode::Char('j')));
    assert!(!copies(&app.update(key(KeyCode::Char('y')))));
}

#[test]
fn the_preview_opens_at_the_selected_message_and_its_keys_scroll_it() {
    let mut app = review_of(two_hundred(), 80, 24);
    for _ in 0..50 {
        app.update(key(KeyCode::Char('j')));
    }
    app.update(key(KeyCode::Char('p')));
    let r = review(&app);
    assert!(r.preview_is_alone() && r.preview_has_keys());
    let view = r.preview_view();
    assert!(
        view.rows[view.top..]
            .iter()
            .take(5)
            .any(|row| crate::render::line_text(row).contains("message 51")),
        "the preview opens at #51: {:?}",
        &view.rows[view.top..view.top + 5]
    );
    let top = view.top;
    app.update(key(KeyCode::PageDown));
    assert_eq!(review(&app).preview_view().top, top + view.height - 1);
    assert_eq!(review(&app).selected, 50, "keys act on the preview shown");
    app.update(key(KeyCode::Char('k')));
    assert_eq!(review(&app).preview_view().top, top + view.height - 2);
    app.update(Msg::WheelDown);
    assert_eq!(review(&app).preview_view().top, top + view.height + 1);
    app.update(key(KeyCode::Char('G')));
    let end = review(&app).preview_view();
    assert_eq!(end.top + end.height, end.rows.len());
    app.update(key(KeyCode::Char('g')));
    assert_eq!(review(&app).preview_view().top, 0);
    app.update(key(KeyCode::Esc));
    assert!(
        !review(&app).preview,
        "Esc leaves the preview, not the review"
    );

    // Beside the messages, Tab gives the keys to the preview and back.
    let mut app = review_of(two_hundred(), 120, 40);
    app.update(key(KeyCode::Char('p')));
    assert!(!review(&app).preview_has_keys());
    app.update(key(KeyCode::Char('j')));
    assert_eq!(review(&app).selected, 1);
    let followed = review(&app).preview_view().top;
    assert!(followed > 0, "the preview follows the selection");
    app.update(key(KeyCode::Tab));
    assert!(review(&app).preview_has_keys());
    app.update(key(KeyCode::Char('j')));
    assert_eq!(review(&app).selected, 1);
    assert_eq!(review(&app).preview_view().top, followed + 1);
    app.update(key(KeyCode::Esc));
    assert!(review(&app).preview && !review(&app).preview_has_keys());
}

#[test]
fn a_role_name_with_control_characters_asks_before_export_and_x_strips_it() {
    let role = Role::Other("sys\u{1b}]0;pwned\u{7}tem".into());
    let mut app = review_of(messages(&[(role, "hi")]), 100, 30);
    let effects = app.update(key(KeyCode::Char('y')));
    assert!(!copies(&effects), "the first copy asks first");
    let notice = app.flash.as_ref().unwrap().text.clone();
    assert!(notice.contains("2 control characters"), "{notice}");
    assert!(copies(&app.update(key(KeyCode::Char('x')))));
    // The whole sequence goes, and what is left is `system`.
    assert_eq!(review(&app).items[0].message().role, Role::System);
}

#[test]
fn a_draft_taken_while_the_editor_shows_control_characters_keeps_their_bytes() {
    let raw = "\u{1b}[1mbold\u{1b}[0m";
    let mut app = review_of(messages(&[(Role::User, raw)]), 100, 30);
    app.update(key(KeyCode::Char('e')));
    type_text(&mut app, "!");
    let draft = review(&app).draft();
    assert_eq!(
        draft.items[0].message().content,
        Content::text(format!("{raw}!"))
    );
    // Ctrl-G hands $EDITOR the real bytes too.
    let effects = app.update(ctrl('g'));
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::ExternalEditor { text } if *text == format!("{raw}!"))),
        "{effects:?}"
    );
}

/// The text of the last notice shown.
fn last_notice(app: &App) -> String {
    app.notices
        .back()
        .map(|n| n.text.clone())
        .unwrap_or_default()
}

#[test]
fn message_keys_do_nothing_while_the_preview_has_the_keys() {
    let mut app = review_of(two_hundred(), 80, 24);
    app.update(key(KeyCode::Char('p')));
    assert!(review(&app).preview_is_alone());
    let before = review(&app).current();
    for k in ["d", "r", "a", "e", "i", "u", "U", "x", "o", "w"] {
        app.notices.clear();
        app.update(key(KeyCode::Char(k.chars().next().unwrap())));
        assert_eq!(
            review(&app).current(),
            before,
            "{k} changed the unseen messages"
        );
        assert!(!review(&app).is_typing(), "{k} opened an input");
        assert!(
            last_notice(&app).contains("p or Esc shows them"),
            "{k}: {:?}",
            last_notice(&app)
        );
    }
    app.update(alt(KeyCode::Down));
    app.update(ctrl('z'));
    assert_eq!(review(&app).current(), before);
    assert_eq!(review(&app).selected, 0);
    // The export keys act on the export shown.
    assert!(copies(&app.update(key(KeyCode::Char('y')))));
    app.update(key(KeyCode::Char('s')));
    assert!(review(&app).input.is_some(), "s asks for a file name");
    app.update(key(KeyCode::Esc));
    // Back at the messages, d deletes again.
    app.update(key(KeyCode::Char('p')));
    app.update(key(KeyCode::Char('d')));
    assert_eq!(review(&app).items.len(), 199);

    // Beside the messages, after Tab: the same, and Tab goes back.
    let mut app = review_of(two_hundred(), 120, 40);
    app.update(key(KeyCode::Char('p')));
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::Char('d')));
    assert_eq!(review(&app).items.len(), 200);
    assert!(last_notice(&app).contains("Tab or Esc goes back"));
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::Char('d')));
    assert_eq!(review(&app).items.len(), 199);
}

#[test]
fn alt_f_on_the_file_name_line_stops_at_each_word_end() {
    let mut app = review_of(messages(&[(Role::User, "hi")]), 100, 30);
    app.update(key(KeyCode::Char('s')));
    let input = |app: &App| review(app).input.as_ref().unwrap().editor.lines().join("");
    app.update(ctrl('u'));
    type_text(&mut app, "out/tabs.md");
    app.update(ctrl('a'));
    app.update(alt(KeyCode::Char('f')));
    app.update(alt(KeyCode::Char('f')));
    type_text(&mut app, "X");
    assert_eq!(input(&app), "out/tabsX.md");
    app.update(alt(KeyCode::Char('f')));
    type_text(&mut app, "Y");
    assert_eq!(input(&app), "out/tabsX.mdY");
}

#[test]
fn page_up_mirrors_page_down() {
    for (columns, rows) in [(120, 40), (80, 24)] {
        let mut app = review_of(two_hundred(), columns, rows);
        let at = |app: &App| {
            let r = review(app);
            let view = r.messages_view();
            let first = view.headers.iter().position(|&h| h >= view.top).unwrap();
            (r.selected, first)
        };
        let mut downs = vec![at(&app)];
        for _ in 0..6 {
            app.update(key(KeyCode::PageDown));
            downs.push(at(&app));
        }
        let mut ups = vec![at(&app)];
        while review(&app).selected > 0 && ups.len() < 20 {
            app.update(key(KeyCode::PageUp));
            ups.push(at(&app));
        }
        // Exactly back: each PgUp lands where the PgDn it undoes started.
        let mut retraced = ups.clone();
        retraced.reverse();
        assert_eq!(retraced, downs, "at {columns}×{rows}");
        let height = review(&app).messages_view().height;
        let moves = |steps: &[(usize, usize)]| -> Vec<usize> {
            steps.windows(2).map(|w| w[0].1.abs_diff(w[1].1)).collect()
        };
        let (down_moves, up_moves) = (moves(&downs), moves(&ups));
        // Every page but the one reaching the top moves the view by about a page, as PgDn.
        let shortest_down = *down_moves.iter().min().unwrap();
        for (n, &moved) in up_moves[..up_moves.len() - 1].iter().enumerate() {
            assert!(
                moved + 3 >= shortest_down && moved <= height,
                "at {columns}×{rows}, PgUp {} moved {moved} rows (PgDn {down_moves:?}): {ups:?}",
                n + 1
            );
        }
        // As many pages up as down.
        assert!(ups.len().abs_diff(downs.len()) <= 1, "{downs:?} {ups:?}");
        assert_eq!(ups.last().unwrap(), &(0, 0));
    }
}

/// A review holding a text message, then a WAV audio block (0.5 s of 8 kHz mono silence).
fn review_with_audio() -> App {
    use base64::Engine;
    let mut wav = b"RIFF\0\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0".to_vec();
    wav.extend_from_slice(&8000u32.to_le_bytes());
    wav.extend_from_slice(&8000u32.to_le_bytes());
    wav.extend_from_slice(b"\x01\0\x08\0data");
    wav.extend_from_slice(&4000u32.to_le_bytes());
    wav.resize(wav.len() + 4000, 0x80);
    let audio: Content = serde_json::from_value(serde_json::json!({
        "type": "audio",
        "mimeType": "audio/wav",
        "data": base64::engine::general_purpose::STANDARD.encode(&wav),
    }))
    .unwrap();
    let mut all = messages(&[(Role::User, "Listen:")]);
    all.messages.push(crate::model::Message {
        role: Role::User,
        content: audio,
    });
    review_of(all, 120, 40)
}

fn plays(effects: &[Effect]) -> Option<(u64, &[u8], &str)> {
    effects.iter().find_map(|e| match e {
        Effect::PlayAudio {
            id,
            bytes,
            extension,
            ..
        } => Some((*id, bytes.as_slice(), extension.as_str())),
        _ => None,
    })
}

#[test]
fn an_audio_block_tells_its_format_and_length_and_p_plays_it() {
    let mut app = review_with_audio();
    let rows = review(&app).items[1].rows(100);
    assert!(
        crate::render::line_text(&rows[0])
            .contains("WAV PCM 8-bit · 8 kHz mono · 0.5 s — P plays, w saves the bytes"),
        "{rows:?}"
    );
    // On a text block, P says what it is for.
    assert!(plays(&app.update(key(KeyCode::Char('P')))).is_none());
    assert!(last_notice(&app).contains("P plays audio blocks"));
    app.update(key(KeyCode::Down));
    let effects = app.update(key(KeyCode::Char('P')));
    let (id, bytes, extension) = plays(&effects).expect("P plays the audio");
    assert!(bytes.starts_with(b"RIFF"));
    assert_eq!(extension, "wav");
    assert_eq!(app.playing.as_ref().map(|p| (p.id, p.index)), Some((id, 1)));
    // P again starts it over: the first one is stopped.
    let again = app.update(key(KeyCode::Char('P')));
    assert!(again.contains(&Effect::StopAudio { id }), "{again:?}");
    let (second, _, _) = plays(&again).unwrap();
    // Esc stops it and stays in the review; the next Esc leaves.
    let effects = app.update(key(KeyCode::Esc));
    assert_eq!(effects, vec![Effect::StopAudio { id: second }]);
    assert!(app.playing.is_none());
    assert!(matches!(app.screen, Screen::Review(_)));
    // The stopped player's end says nothing.
    app.update(Msg::AudioEnded {
        id: second,
        result: Err("killed".into()),
    });
    assert!(!last_notice(&app).contains("killed"));
}

#[test]
fn a_player_that_fails_says_why_and_leaving_the_review_stops_the_audio() {
    let mut app = review_with_audio();
    app.update(key(KeyCode::Down));
    let (id, _, _) = plays(&app.update(key(KeyCode::Char('P')))).unwrap();
    app.update(Msg::AudioEnded {
        id,
        result: Err("No audio player found: set `audio_player`".into()),
    });
    assert!(
        last_notice(&app).contains("audio_player"),
        "{}",
        last_notice(&app)
    );
    assert!(app.playing.is_none());
    // Leaving the review by any way stops the audio: here the copy of an accept.
    plays(&app.update(key(KeyCode::Char('P')))).unwrap();
    let effects = app.update(key(KeyCode::Enter));
    assert!(copies(&effects), "{effects:?}");
    let effects = app.update(Msg::Copied {
        result: Ok(crate::export::clipboard::Copied::Desktop {
            via: "xclip".into(),
        }),
        leave: true,
    });
    assert!(!matches!(app.screen, Screen::Review(_)));
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::StopAudio { .. })),
        "{effects:?}"
    );
    assert!(app.playing.is_none());
}

/// The text of message `index`'s rows as laid out now.
fn body_texts(app: &App, index: usize) -> Vec<String> {
    review(app).items[index]
        .rows(60)
        .iter()
        .map(crate::render::line_text)
        .collect()
}

#[test]
fn m_switches_the_selected_message_between_rendered_and_raw_and_e_edits_the_raw_text() {
    let source = "# Title\n\n- **one**\n- two";
    let mut app = review_of(
        messages(&[(Role::User, source), (Role::User, "# other")]),
        100,
        30,
    );
    assert_eq!(body_texts(&app, 0), ["Title", "", "• one", "• two"]);
    app.update(key(KeyCode::Char('m')));
    assert!(review(&app).items[0].is_raw());
    assert_eq!(body_texts(&app, 0), ["# Title", "", "- **one**", "- two"]);
    assert!(!review(&app).items[1].is_raw(), "only the selected message");
    assert_eq!(body_texts(&app, 1), ["other"]);
    // The editor edits the raw text whichever way it is drawn.
    for raw in [true, false] {
        if review(&app).items[0].is_raw() != raw {
            app.update(key(KeyCode::Char('m')));
        }
        app.update(key(KeyCode::Char('e')));
        let editor = review(&app).editor.as_ref().expect("the editor is open");
        assert_eq!(editor.lines().join("\n"), source);
        app.update(key(KeyCode::Esc));
        assert!(!review(&app).has_changes());
    }
    // The loop ended rendered.
    assert!(!review(&app).items[0].is_raw(), "m again renders it");
    assert_eq!(body_texts(&app, 0)[0], "Title");
}

#[test]
fn m_on_a_block_markdown_does_not_render_says_so_and_changes_nothing() {
    let image: Content = serde_json::from_value(
        serde_json::json!({"type": "image", "data": "aGk=", "mimeType": "image/png"}),
    )
    .unwrap();
    let mut app = review_of(
        PromptMessages {
            description: None,
            messages: vec![crate::model::Message {
                role: Role::User,
                content: image,
            }],
        },
        100,
        30,
    );
    app.update(key(KeyCode::Char('m')));
    assert!(!review(&app).items[0].is_raw());
    let flash = app
        .flash
        .as_ref()
        .map(|f| f.text.clone())
        .unwrap_or_default();
    assert!(flash.contains("drawn as it is"), "{flash}");
}

#[test]
fn m_with_the_preview_s_keys_switches_the_markdown_preview_not_the_message() {
    let mut app = review_of(
        messages(&[(Role::User, "# Title"), (Role::Assistant, "Sure.")]),
        80,
        24,
    );
    app.update(key(KeyCode::Char('p')));
    assert!(review(&app).preview_has_keys());
    let first = |app: &App| crate::render::line_text(&review(app).preview_view().rows[0]);
    assert_eq!(first(&app), "user", "the `## user` heading rendered");
    app.update(key(KeyCode::Char('m')));
    assert!(review(&app).preview_raw);
    assert!(!review(&app).items[0].is_raw());
    assert_eq!(first(&app), "## user");
    app.update(key(KeyCode::Char('m')));
    assert_eq!(first(&app), "user");
}

#[test]
fn the_export_keeps_the_base64_the_preview_folds() {
    let data = "QUJD".repeat(1024);
    let image: Content = serde_json::from_value(
        serde_json::json!({"type": "image", "data": data, "mimeType": "image/png"}),
    )
    .unwrap();
    let mut prompt = messages(&[(Role::User, "look")]);
    prompt.messages.push(crate::model::Message {
        role: Role::User,
        content: image,
    });
    for format in [
        crate::export::Format::McpJson,
        crate::export::Format::OpenAi,
        crate::export::Format::Anthropic,
    ] {
        let mut app = review_of(prompt.clone(), 120, 40);
        if let Screen::Review(review) = &mut app.screen {
            review.format = format;
        }
        app.update(key(KeyCode::Char('p')));
        let shown: String = review(&app)
            .preview_view()
            .rows
            .iter()
            .map(crate::render::line_text)
            .collect();
        assert!(shown.contains("…(3072 bytes)…") && !shown.contains(&data));
        let expected = crate::export::render(&review(&app).current(), format);
        assert!(expected.contains(&data));
        let effects = app.update(key(KeyCode::Char('y')));
        let copied = effects.iter().find_map(|e| match e {
            Effect::Copy { text, .. } => Some(text.clone()),
            _ => None,
        });
        assert_eq!(
            copied.as_deref(),
            Some(expected.as_str()),
            "{format:?}: byte for byte"
        );
        assert_eq!(review(&app).export(), expected);
    }
}

/// The whole layouts the app asks for after a frame: the body and the layout of each.
fn layouts_asked(app: &App) -> Vec<(u64, crate::render::rows::RowsKey, Content)> {
    app.layouts_wanted()
        .into_iter()
        .filter_map(|effect| match effect {
            Effect::LayOutBody { body, key, content } => Some((body, key, *content)),
            _ => None,
        })
        .collect()
}

fn highlighted_rows(app: &App, index: usize) -> usize {
    let width = review(app).messages_view().width;
    review(app).items[index]
        .rows(width)
        .iter()
        .filter(|row| {
            row.spans
                .iter()
                .any(|s| s.content == "let" && s.style.fg.is_some())
        })
        .count()
}

#[test]
fn code_past_what_the_loop_affords_is_highlighted_by_a_task_and_put_in_place() {
    crate::render::highlight::load();
    let block = format!("```rust\n{}```\n\n", "let x = 1;\n".repeat(300));
    let mut app = review_of(
        messages(&[(Role::User, &block.repeat(4)), (Role::Assistant, "# Done")]),
        100,
        40,
    );
    app.update(Msg::Resize(100, 40));
    // The open laid the first message out with the top of its first block highlighted,
    // the rest plain…
    let at_once = crate::render::highlight::AT_ONCE_BYTES / "let x = 1;\n".len();
    assert_eq!(highlighted_rows(&app, 0), at_once);
    let asked = layouts_asked(&app);
    assert_eq!(
        asked.len(),
        1,
        "one whole layout, for the message with much code"
    );
    assert!(layouts_asked(&app).is_empty(), "asked once");
    let (body, layout, content) = asked.into_iter().next().unwrap();
    assert_eq!(content, review(&app).items[0].message().content);
    // …and the task's answer takes their place, every block highlighted.
    let rows = crate::render::rows::whole_rows(&content, layout);
    app.update(Msg::BodyLaidOut {
        body,
        key: layout,
        rows: rows.clone(),
    });
    assert_eq!(highlighted_rows(&app, 0), 1200);
    // An answer for a body since edited is dropped: the edit's layout stands.
    app.update(key(KeyCode::Char('e')));
    type_text(&mut app, "x");
    app.update(key(KeyCode::Esc));
    assert!(!review(&app).is_typing());
    assert!(review(&app).items[0].message().content != content, "edited");
    app.update(Msg::BodyLaidOut {
        body,
        key: layout,
        rows,
    });
    assert_ne!(
        highlighted_rows(&app, 0),
        1200,
        "the stale layout was dropped"
    );
}

#[test]
fn switching_to_anthropic_says_what_the_export_leaves_out() {
    let mut app = review_of(
        messages(&[(Role::User, "Hi"), (Role::Assistant, "  ")]),
        120,
        40,
    );
    // f cycles markdown → text → mcp-json → openai → anthropic.
    for _ in 0..3 {
        app.update(Msg::Key(KeyEvent::from(KeyCode::Char('f'))));
    }
    assert_eq!(super::tests::shown(&app), Some("Export format: openai"));
    app.update(Msg::Key(KeyEvent::from(KeyCode::Char('f'))));
    assert_eq!(
        super::tests::shown(&app),
        Some(
            "Export format: anthropic. Left out message #2: blank text (the Messages API refuses it)."
        )
    );
    assert_eq!(review(&app).export_notes().len(), 1);
}

#[test]
fn opening_the_review_in_anthropic_format_says_what_it_leaves_out() {
    let mut app = super::tests::ready_app();
    app.options.format = crate::export::Format::Anthropic;
    super::tests::type_text(&mut app, "args-prompt");
    app.update(super::tests::key(KeyCode::Enter));
    super::tests::type_text(&mut app, "New York");
    app.update(super::tests::key(KeyCode::Enter));
    let effects = app.update(super::tests::key(KeyCode::Enter));
    let id = super::tests::fetch_id(&effects);
    app.update(Msg::Fetched {
        id,
        result: Ok(GetOutcome::Messages(messages(&[
            (Role::User, "Weather?"),
            (Role::User, ""),
        ]))),
    });
    assert!(matches!(app.screen, Screen::Review(_)));
    assert_eq!(
        super::tests::shown(&app),
        Some("Left out message #2: blank text (the Messages API refuses it).")
    );
}

#[test]
fn the_message_a_adds_takes_the_turn_after_the_selected_one() {
    let mut app = review_of(
        messages(&[(Role::User, "Question"), (Role::Assistant, "Answer")]),
        120,
        40,
    );
    // On the user's message: the next one is the assistant's.
    app.update(Msg::Key(KeyEvent::from(KeyCode::Home)));
    app.update(Msg::Key(KeyEvent::from(KeyCode::Char('a'))));
    app.update(Msg::Key(KeyEvent::from(KeyCode::Esc)));
    let roles: Vec<Role> = review(&app)
        .current()
        .messages
        .iter()
        .map(|m| m.role.clone())
        .collect();
    assert_eq!(roles[..2], [Role::User, Role::Assistant]);
    // On an assistant's message: the user's turn.
    app.update(Msg::Key(KeyEvent::from(KeyCode::End)));
    app.update(Msg::Key(KeyEvent::from(KeyCode::Char('a'))));
    app.update(Msg::Key(KeyEvent::from(KeyCode::Esc)));
    let roles: Vec<Role> = review(&app)
        .current()
        .messages
        .iter()
        .map(|m| m.role.clone())
        .collect();
    assert_eq!(roles.last(), Some(&Role::User), "{roles:?}");
    assert_eq!(roles.len(), 4, "{roles:?}");
}

#[test]
fn the_control_characters_warning_says_whose_they_are() {
    let warning = |app: &mut App| {
        app.update(key(KeyCode::Char('y')));
        app.flash
            .as_ref()
            .map(|f| f.text.clone())
            .unwrap_or_default()
    };
    // The server's own escape sequence.
    let mut app = review_of(messages(&[(Role::User, "red \u{1b}[31m text")]), 80, 24);
    assert!(
        warning(&mut app).contains("(escape sequences from the server)"),
        "{:?}",
        app.flash
    );
    // One the user pasted into a value, which the server echoed.
    let mut app = review_of(messages(&[(Role::User, "Weather in \u{1b}[2J?")]), 80, 24);
    if let Screen::Review(review) = &mut app.screen {
        review.arguments.insert("city".into(), "\u{1b}[2J".into());
    }
    let said = warning(&mut app);
    assert!(
        said.contains("(yours: in what you typed or pasted)"),
        "{said}"
    );
    // Both: one of each.
    let mut app = review_of(
        messages(&[(Role::User, "\u{1b}[31m Weather in \u{1b}[2J?")]),
        80,
        24,
    );
    if let Screen::Review(review) = &mut app.screen {
        review.arguments.insert("city".into(), "\u{1b}[2J".into());
    }
    let said = warning(&mut app);
    assert!(
        said.contains("(1 from what you typed or pasted, 1 from the server)"),
        "{said}"
    );
    // Hidden characters, counted and named apart: zero-width spaces and a stray selector
    // from the server; an emoji's own joiner and selector are not counted.
    let mut app = review_of(
        messages(&[(
            Role::User,
            "Sum\u{200b}mar\u{200b}ize a\u{fe01} 👩\u{200d}💻 ❤\u{fe0f}",
        )]),
        80,
        24,
    );
    let said = warning(&mut app);
    assert!(
        said.contains("x strips the 3 hidden characters first (hidden characters from the server)"),
        "{said}"
    );
    // Both kinds: each named.
    let mut app = review_of(messages(&[(Role::User, "\u{1b}[31m a\u{200b}b")]), 80, 24);
    let said = warning(&mut app);
    assert!(
        said.contains("1 control and 1 hidden characters first (escape sequences from the server; hidden characters from the server)"),
        "{said}"
    );
}

#[test]
fn tab_in_the_editor_inserts_a_tab_in_tab_indented_text_and_spaces_otherwise() {
    let edited = |text: &str| {
        let mut app = review_of(messages(&[(Role::User, text)]), 80, 24);
        app.update(key(KeyCode::Char('e')));
        app.update(key(KeyCode::Tab));
        app.update(key(KeyCode::Char('y')));
        app.update(key(KeyCode::Esc));
        crate::app::editable_text(&review(&app).items[0].message().content)
            .unwrap()
            .to_string()
    };
    assert_eq!(edited("all:\n\tcc x.c\n"), "all:\n\tcc x.c\n\ty");
    assert_eq!(edited("Steps:\n  one\n"), "Steps:\n  one\n    y");
}
