//! Templates: literal text with argument slots, filled in a single pass (a value that
//! itself looks like a placeholder is never expanded again).

use std::collections::BTreeMap;

/// A piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Text copied as it is.
    Literal(String),
    /// The value of the named argument (empty when not given).
    Arg(String),
}

/// A parsed template.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Template {
    /// Its pieces, in order.
    pub segments: Vec<Segment>,
}

impl Template {
    /// Appends literal text, merging with a literal before it.
    pub fn push_literal(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.segments.last_mut() {
            Some(Segment::Literal(last)) => last.push_str(text),
            _ => self.segments.push(Segment::Literal(text.to_string())),
        }
    }

    /// Appends an argument slot.
    pub fn push_arg(&mut self, name: &str) {
        self.segments.push(Segment::Arg(name.to_string()));
    }

    /// Fills the slots from `values`; a missing value is the empty string.
    pub fn render(&self, values: &BTreeMap<String, String>) -> String {
        let mut out = String::new();
        for segment in &self.segments {
            match segment {
                Segment::Literal(text) => out.push_str(text),
                Segment::Arg(name) => out.push_str(values.get(name).map_or("", String::as_str)),
            }
        }
        out
    }

    /// The argument names used, in order of first use.
    pub fn arg_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for segment in &self.segments {
            if let Segment::Arg(name) = segment
                && !names.contains(&name.as_str())
            {
                names.push(name);
            }
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_inserted_once_and_never_reexpanded() {
        let mut template = Template::default();
        template.push_literal("a ");
        template.push_arg("x");
        template.push_literal(" b ");
        template.push_arg("y");
        let values = BTreeMap::from([
            (
                "x".to_string(),
                "{{y}} $1 ${input:z} }}\nnew line — ü".to_string(),
            ),
            ("y".to_string(), String::new()),
        ]);
        assert_eq!(
            template.render(&values),
            "a {{y}} $1 ${input:z} }}\nnew line — ü b "
        );
    }

    #[test]
    fn missing_values_are_empty_and_literals_merge() {
        let mut template = Template::default();
        template.push_literal("a");
        template.push_literal("b");
        template.push_arg("x");
        template.push_arg("x");
        assert_eq!(template.segments.len(), 3);
        assert_eq!(template.render(&BTreeMap::new()), "ab");
        assert_eq!(template.arg_names(), vec!["x"]);
    }
}
