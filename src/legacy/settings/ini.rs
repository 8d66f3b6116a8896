//! The ini layer: `[Section]` headers, `Key=Value` lines and comments,
//! with section and key names compared case-insensitively, as UE4 reads them.
//!
//! Rules chosen where UE4's ini reader and CARLA 0.8.4 leave it open:
//! * whitespace around names and values is ignored, and one pair of double
//!   quotes around a whole value is removed (`Key="a b"` is `a b`);
//! * a line whose first non-blank character is `;` or `#` is a comment;
//!   there are no end-of-line comments (`Key=1 ; x` has the value `1 ; x`);
//! * a section header repeated later continues the same section, and a key
//!   given twice in one section takes its last value;
//! * `Key=Value` lines before the first header belong to the section named
//!   `""` (no key is known there);
//! * a line that is none of the above, an empty `[]`, an unclosed `[...`
//!   and a line starting with `=` are errors naming the line number.

use super::error::{Location, SettingsError};
use std::collections::HashMap;

/// One `Key=Value` line.
pub(super) struct Entry<'a> {
    /// The key as written.
    pub key: &'a str,
    /// The value, trimmed and unquoted.
    pub value: &'a str,
    /// 1-based line number.
    pub line: usize,
}

/// A section: all its lines, in file order, however many headers it had.
pub(super) struct Section<'a> {
    /// The name as first written.
    pub name: &'a str,
    pub entries: Vec<Entry<'a>>,
}

/// A parsed ini text borrowing from the input.
pub(super) struct Ini<'a> {
    /// In order of first appearance.
    pub sections: Vec<Section<'a>>,
    /// Lower-case name -> index in `sections`.
    index: HashMap<String, usize>,
}

/// A value found by a lookup, with where it came from (for error messages).
#[derive(Clone, Copy)]
pub(super) struct Found<'a> {
    pub section: &'a str,
    pub key: &'a str,
    pub value: &'a str,
    pub line: usize,
}

impl Found<'_> {
    /// The location for an error message.
    pub(super) fn location(&self) -> Location {
        Location {
            section: self.section.to_owned(),
            key: self.key.to_owned(),
            value: self.value.to_owned(),
            line: self.line,
        }
    }
}

fn unquote(value: &str) -> &str {
    value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(value)
}

impl<'a> Ini<'a> {
    /// Splits `text` into sections and entries.
    pub(super) fn parse(text: &'a str) -> Result<Ini<'a>, SettingsError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut ini = Ini {
            sections: Vec::new(),
            index: HashMap::new(),
        };
        let mut current = ini.section_index("");
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            let number = i + 1;
            if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
                continue;
            }
            let malformed = || SettingsError::MalformedLine {
                line: number,
                text: line.to_owned(),
            };
            if let Some(rest) = line.strip_prefix('[') {
                let name = rest.strip_suffix(']').ok_or_else(malformed)?.trim();
                if name.is_empty() {
                    return Err(malformed());
                }
                current = ini.section_index(name);
            } else if let Some((key, value)) = line.split_once('=') {
                let key = key.trim();
                if key.is_empty() {
                    return Err(malformed());
                }
                ini.sections[current].entries.push(Entry {
                    key,
                    value: unquote(value.trim()),
                    line: number,
                });
            } else {
                return Err(malformed());
            }
        }
        Ok(ini)
    }

    fn section_index(&mut self, name: &'a str) -> usize {
        let next = self.sections.len();
        let i = *self.index.entry(name.to_ascii_lowercase()).or_insert(next);
        if i == next {
            self.sections.push(Section {
                name,
                entries: Vec::new(),
            });
        }
        i
    }

    /// The section named `name` (any case), if the text has one.
    pub(super) fn section(&self, name: &str) -> Option<&Section<'a>> {
        self.index
            .get(&name.to_ascii_lowercase())
            .map(|&i| &self.sections[i])
    }

    /// The last value of `key` (any case) in section `section` (any case).
    pub(super) fn get(&self, section: &str, key: &str) -> Option<Found<'a>> {
        let s = self.section(section)?;
        s.entries
            .iter()
            .rev()
            .find(|e| e.key.eq_ignore_ascii_case(key))
            .map(|e| Found {
                section: s.name,
                key: e.key,
                value: e.value,
                line: e.line,
            })
    }

    /// The value of `key` from the deepest section of `chain` that has it.
    pub(super) fn get_inherited(&self, chain: &[&str], key: &str) -> Option<Found<'a>> {
        chain
            .iter()
            .rev()
            .find_map(|section| self.get(section, key))
    }
}
