//! The menu with prompts and skills (SEP-2640) mixed, drawn into a test backend.

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::app::App;
use crate::app::skill_tests::skills_app;
use crate::app::tests::type_text;

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| super::draw(app, frame)).unwrap();
    terminal.backend().to_string()
}

/// The skill `review` selected: its badge in the list, its front matter and files in
/// the details.
fn review_selected() -> App {
    let mut app = skills_app();
    type_text(&mut app, "review");
    assert_eq!(app.selected_entry().unwrap().slash_name, "served:review");
    app
}

#[test]
fn menu_with_prompts_and_skills_wide() {
    let drawn = screen(&skills_app(), 120, 40);
    assert!(drawn.contains("[skill]"), "{drawn}");
    insta::assert_snapshot!(drawn);
}

#[test]
fn menu_with_prompts_and_skills_narrow() {
    insta::assert_snapshot!(screen(&skills_app(), 80, 24));
}

#[test]
fn a_selected_skill_shows_its_front_matter_and_files() {
    let drawn = screen(&review_selected(), 120, 40);
    for part in [
        "Front matter",
        "references/GUIDE.md",
        "skill://review/SKILL.md",
    ] {
        assert!(drawn.contains(part), "no {part} in\n{drawn}");
    }
    insta::assert_snapshot!(drawn);
}

#[test]
fn a_selected_skill_at_80_by_24() {
    insta::assert_snapshot!(screen(&review_selected(), 80, 24));
}

#[test]
fn a_skills_form_asks_for_the_task_and_says_what_enter_does() {
    let mut app = review_selected();
    app.update(crate::app::tests::key(crossterm::event::KeyCode::Enter));
    let drawn = screen(&app, 80, 24);
    assert!(drawn.contains("Task"), "{drawn}");
    insta::assert_snapshot!(drawn);
}
