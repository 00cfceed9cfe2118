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

/// Titled prompts from two servers beside a skill: every row shows its server, titles stay
/// whole at 120 columns, and each column starts where it did before the search narrowed
/// the list (the widths come from the whole list, not the rows on screen).
fn titled_and_a_skill() -> App {
    use crate::app::Msg;
    use crate::app::tests::{details, prompt};
    use crate::mcp::McpEvent;
    let mut app = App::new(
        vec!["docs".into(), "team-library".into()],
        crate::app::Options::default(),
        crate::app::KeyMap::default(),
        crate::app::History::default(),
    );
    let titled = |server: &str, name: &str, title: &str, args: &[(&str, bool)]| {
        let mut info = prompt(
            server,
            name,
            args.iter()
                .map(|(arg, required)| crate::model::PromptArg {
                    name: (*arg).into(),
                    title: None,
                    description: None,
                    required: *required,
                })
                .collect(),
        );
        info.title = Some(title.into());
        info
    };
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "docs".into(),
        details: details(false),
        prompts: vec![
            titled(
                "docs",
                "translate",
                "Translate a text",
                &[("text", true), ("to", true)],
            ),
            titled(
                "docs",
                "summarize",
                "Summarise a long document",
                &[("text", true)],
            ),
        ],
    }));
    let mut with_skills = details(false);
    with_skills.skills = true;
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "team-library".into(),
        details: with_skills,
        prompts: vec![
            titled(
                "team-library",
                "write-tests",
                "Write tests for code",
                &[("code", true)],
            ),
            crate::app::skill_tests::skill("team-library", "pdf-forms", "Fill PDF forms", &[]),
        ],
    }));
    app
}

/// The column where `needle` starts on the row holding `row`.
fn column_of(drawn: &str, row: &str, needle: &str) -> usize {
    let line = drawn
        .lines()
        .find(|l| l.contains(row))
        .unwrap_or_else(|| panic!("no row {row} in\n{drawn}"));
    let at = line
        .find(needle)
        .unwrap_or_else(|| panic!("no {needle} in {line}"));
    line[..at].chars().count()
}

#[test]
fn menu_columns_stay_put_and_titles_stay_whole_beside_a_skill_row() {
    let mut app = titled_and_a_skill();
    let all = screen(&app, 120, 40);
    // Titles are there (the longest cut only by what the arguments' column needs).
    for shown in [
        "Translate a text",
        "Summarise a long docum…",
        "Write tests for code",
        "[skill]",
    ] {
        assert!(all.contains(shown), "no {shown}:\n{all}");
    }
    let rows = ["/translate", "/summarize", "/write-tests", "/pdf-forms"];
    for row in rows {
        let line = all.lines().find(|l| l.contains(row)).unwrap();
        assert!(
            line.contains("docs") || line.contains("team-library"),
            "{line}"
        );
    }
    let title_column = column_of(&all, "/translate", "Translate a text");
    assert_eq!(column_of(&all, "/summarize", "Summarise"), title_column);
    assert_eq!(column_of(&all, "/write-tests", "Write tests"), title_column);
    let args_column = column_of(&all, "/translate", "text*");
    assert_eq!(column_of(&all, "/write-tests", "code*"), args_column);
    let server_column = column_of(&all, "/translate", "docs");
    assert_eq!(column_of(&all, "/pdf-forms", "team-library"), server_column);
    insta::assert_snapshot!(all);

    // Narrowed to one row (the skill row gone): nothing moves.
    type_text(&mut app, "transl");
    let narrowed = screen(&app, 120, 40);
    assert!(!narrowed.contains("[skill]"), "{narrowed}");
    assert_eq!(
        column_of(&narrowed, "/translate", "Translate a text"),
        title_column
    );
    assert_eq!(column_of(&narrowed, "/translate", "text*"), args_column);
    assert_eq!(column_of(&narrowed, "/translate", "docs"), server_column);
}

#[test]
fn menu_columns_beside_a_skill_row_at_80_and_60_columns() {
    let app = titled_and_a_skill();
    for width in [80, 60] {
        let drawn = screen(&app, width, 24);
        let title_column = column_of(&drawn, "/translate", "Translate");
        assert_eq!(
            column_of(&drawn, "/write-tests", "Write"),
            title_column,
            "{drawn}"
        );
        insta::assert_snapshot!(format!("menu_columns_beside_a_skill_row_at_{width}"), drawn);
    }
}
