//! How one listed prompt or skill stands against the lockfile: what the menu marks on its
//! row (`changed`, `new`) and shows in its details.

use super::{DefinitionChange, Lockfile};
use crate::model::PromptInfo;

/// A listed prompt or skill that is not as its server's lock has it.
#[derive(Debug, Clone, PartialEq)]
pub enum Drift {
    /// Its server is locked, but without it: nobody has reviewed it yet.
    New,
    /// Its definition differs from the locked one, change by change.
    Changed(Vec<DefinitionChange>),
}

impl Drift {
    /// The word its menu row shows.
    pub fn word(&self) -> &'static str {
        match self {
            Drift::New => "new",
            Drift::Changed(_) => "changed",
        }
    }
}

impl Lockfile {
    /// How `listed` differs from its server's lock: `None` when it matches, or when the
    /// lockfile does not lock its server at all (nothing was pinned there to drift from).
    pub fn drift_of(&self, listed: &PromptInfo) -> Option<Drift> {
        let server = self.servers.get(&listed.server)?;
        let changes = match &listed.skill {
            Some(manifest) => server
                .skills
                .get(&listed.name)
                .map(|locked| locked.definition_changes(&listed.name, manifest)),
            None => server
                .prompts
                .get(&listed.name)
                .map(|locked| locked.definition_changes(listed)),
        };
        match changes {
            None => Some(Drift::New),
            Some(changes) if changes.is_empty() => None,
            Some(changes) => Some(Drift::Changed(changes)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::{LockedPrompt, LockedServer};
    use crate::model::PromptArg;

    fn prompt(server: &str, name: &str, arguments: Vec<PromptArg>) -> PromptInfo {
        PromptInfo {
            server: server.into(),
            name: name.into(),
            title: None,
            description: Some("Says hello".into()),
            arguments,
            skill: None,
            mirrors_skill: None,
        }
    }

    fn argument(name: &str, required: bool) -> PromptArg {
        PromptArg {
            name: name.into(),
            title: None,
            description: None,
            required,
        }
    }

    fn locked(listed: &PromptInfo) -> Lockfile {
        let mut server = LockedServer::default();
        server
            .prompts
            .insert(listed.name.clone(), LockedPrompt::from_info(listed));
        let mut lock = Lockfile::default();
        lock.servers.insert(listed.server.clone(), server);
        lock
    }

    #[test]
    fn a_prompt_is_the_same_changed_new_or_of_a_server_not_locked() {
        let hello = prompt("team", "hello", vec![argument("name", false)]);
        let lock = locked(&hello);
        assert_eq!(lock.drift_of(&hello), None);
        let now_required = prompt("team", "hello", vec![argument("name", true)]);
        let Some(Drift::Changed(changes)) = lock.drift_of(&now_required) else {
            panic!("not changed");
        };
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].to_string(), "argument `name` is now required");
        assert_eq!(
            lock.drift_of(&prompt("team", "other", Vec::new())),
            Some(Drift::New)
        );
        assert_eq!(
            lock.drift_of(&prompt("elsewhere", "hello", Vec::new())),
            None
        );
    }
}
