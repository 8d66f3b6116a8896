//! The miniature UHT's parser: reflected classes, their `GENERATED_BODY`,
//! `UFUNCTION`s and interface events, from `super::tokenize`'s tokens.

use super::{fail, tokenize, Kind, Result, Token};

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum ClassKind {
    UClass,
    UInterface,
    IInterface,
    UStruct,
}

impl ClassKind {
    pub(super) fn macro_name(self) -> &'static str {
        match self {
            ClassKind::UClass => "UCLASS",
            ClassKind::UInterface => "UINTERFACE",
            ClassKind::IInterface => "the I-class of a UINTERFACE",
            ClassKind::UStruct => "USTRUCT",
        }
    }
}

#[derive(Debug)]
pub(super) struct Param {
    pub(super) ty: String,
    pub(super) name: String,
}

#[derive(Debug)]
pub(super) struct Event {
    pub(super) name: String,
    pub(super) ret: String,
    pub(super) params: Vec<Param>,
    pub(super) is_const: bool,
    pub(super) native: bool,
}

#[derive(Debug)]
pub(super) struct Class {
    pub(super) kind: ClassKind,
    pub(super) name: String,
    pub(super) super_class: Option<String>,
    pub(super) line: usize,
    pub(super) open: usize,
    pub(super) close: usize,
    /// The GENERATED_BODY line and whether it is GENERATED_UCLASS_BODY.
    pub(super) body: Option<(usize, bool)>,
    pub(super) ufunctions: Vec<String>,
    pub(super) events: Vec<Event>,
    /// Identifiers declared in the body (to see a user-declared `_Implementation`).
    pub(super) declares: Vec<String>,
}

pub(super) struct ClassHead {
    pub(super) name: String,
    pub(super) bases: Vec<(String, String)>, // (access, type)
    pub(super) open: usize,
}

pub(super) struct Parser<'a> {
    pub(super) code: &'a str,
    pub(super) tokens: Vec<Token>,
    /// Brace depth before each token.
    pub(super) depth: Vec<usize>,
}

impl<'a> Parser<'a> {
    pub(super) fn new(code: &'a str) -> Parser<'a> {
        let tokens = tokenize(code);
        let mut depth = Vec::with_capacity(tokens.len());
        let mut d: usize = 0;
        for token in &tokens {
            if token.text == "}" {
                d = d.saturating_sub(1);
            }
            depth.push(d);
            if token.text == "{" {
                d += 1;
            }
        }
        Parser {
            code,
            tokens,
            depth,
        }
    }

    pub(super) fn is(&self, index: usize, text: &str) -> bool {
        self.tokens.get(index).is_some_and(|t| t.text == text)
    }

    pub(super) fn line(&self, index: usize) -> usize {
        self.tokens
            .get(index)
            .or(self.tokens.last())
            .map_or(1, |t| t.line)
    }

    /// The index of the bracket closing the one at `open`.
    pub(super) fn matching(&self, open: usize) -> Result<usize> {
        let (opening, closing) = match self.tokens[open].text.as_str() {
            "(" => ("(", ")"),
            "[" => ("[", "]"),
            "{" => ("{", "}"),
            other => {
                return fail(
                    self.line(open),
                    format!("expected a bracket, found {other:?}"),
                )
            }
        };
        let mut level = 0;
        for (index, token) in self.tokens.iter().enumerate().skip(open) {
            if token.text == opening {
                level += 1;
            } else if token.text == closing {
                level -= 1;
                if level == 0 {
                    return Ok(index);
                }
            }
        }
        fail(self.line(open), format!("unbalanced {opening:?}"))
    }

    /// Source text of tokens [from, to), whitespace collapsed.
    pub(super) fn text(&self, from: usize, to: usize) -> String {
        if from >= to {
            return String::new();
        }
        self.code[self.tokens[from].start..self.tokens[to - 1].end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// `class|struct [X_API] Name [final] [: bases] {` at `at`; None for a
    /// forward declaration.
    pub(super) fn class_head(&self, at: usize) -> Result<Option<ClassHead>> {
        let line = self.line(at);
        if !(self.is(at, "class") || self.is(at, "struct")) {
            return fail(
                line,
                "expected `class` or `struct` after the reflection macro",
            );
        }
        let mut names = Vec::new();
        let mut i = at + 1;
        while let Some(token) = self.tokens.get(i) {
            match token.text.as_str() {
                "{" | ":" => break,
                ";" => return Ok(None),
                "final" => {}
                _ if token.kind == Kind::Ident && token.text.ends_with("_API") => {}
                _ if token.kind == Kind::Ident => names.push(token.text.clone()),
                other => {
                    return fail(
                        token.line,
                        format!("cannot parse the class declaration at {other:?}"),
                    )
                }
            }
            i += 1;
        }
        if names.len() != 1 {
            return fail(
                line,
                format!("cannot parse the class declaration (names: {names:?})"),
            );
        }
        let mut bases = Vec::new();
        if self.is(i, ":") {
            i += 1;
            let mut start = i;
            let mut angle = 0;
            loop {
                let Some(token) = self.tokens.get(i) else {
                    return fail(line, "the class declaration has no body");
                };
                match token.text.as_str() {
                    "<" => angle += 1,
                    ">" => angle -= 1,
                    "," | "{" if angle == 0 => {
                        let mut from = start;
                        let mut access = String::from("private");
                        while let Some(word) = self.tokens.get(from).filter(|_| from < i) {
                            match word.text.as_str() {
                                "public" | "protected" | "private" => access = word.text.clone(),
                                "virtual" => {}
                                _ => break,
                            }
                            from += 1;
                        }
                        if from == i {
                            return fail(token.line, "a base class without a name");
                        }
                        bases.push((access, self.text(from, i)));
                        start = i + 1;
                        if token.text == "{" {
                            break;
                        }
                    }
                    ";" => return fail(token.line, "the class declaration has no body"),
                    _ => {}
                }
                i += 1;
            }
        }
        if !self.is(i, "{") {
            return fail(line, "the class declaration has no body");
        }
        Ok(Some(ClassHead {
            name: names.remove(0),
            bases,
            open: i,
        }))
    }

    pub(super) fn class(&self, kind: ClassKind, head: ClassHead, line: usize) -> Result<Class> {
        let close = self.matching(head.open)?;
        let super_class = match head.bases.first() {
            Some((access, base)) => {
                if kind != ClassKind::UStruct && access != "public" {
                    return fail(
                        line,
                        format!(
                            "{} {} must derive publicly from {base}",
                            kind.macro_name(),
                            head.name
                        ),
                    );
                }
                Some(base.clone())
            }
            None if kind == ClassKind::UClass || kind == ClassKind::UInterface => {
                return fail(
                    line,
                    format!(
                        "{} {} has no base class (a UCLASS derives from UObject)",
                        kind.macro_name(),
                        head.name
                    ),
                );
            }
            None => None,
        };
        let declares = (head.open + 1..close)
            .filter(|&i| self.tokens[i].kind == Kind::Ident)
            .map(|i| self.tokens[i].text.clone())
            .collect();
        Ok(Class {
            kind,
            name: head.name,
            super_class,
            line,
            open: head.open,
            close,
            body: None,
            ufunctions: Vec::new(),
            events: Vec::new(),
            declares,
        })
    }

    /// The UFUNCTIONs declared directly in `class` (names, and the events of an I-class).
    pub(super) fn functions(&self, class: &mut Class) -> Result<()> {
        let inner = self.depth[class.open] + 1;
        let mut i = class.open + 1;
        while i < class.close {
            if !(self.depth[i] == inner && self.is(i, "UFUNCTION") && self.is(i + 1, "(")) {
                i += 1;
                continue;
            }
            let line = self.line(i);
            let spec_close = self.matching(i + 1)?;
            let specifiers: Vec<&str> = (i + 2..spec_close)
                .filter(|&s| self.tokens[s].kind == Kind::Ident)
                .map(|s| self.tokens[s].text.as_str())
                .collect();
            let native = specifiers.contains(&"BlueprintNativeEvent");
            let event = native || specifiers.contains(&"BlueprintImplementableEvent");
            // The declaration: up to `;` or a body, outside brackets.
            let start = spec_close + 1;
            let mut end = start;
            let mut paren = 0;
            let mut first_paren = None;
            while end < class.close {
                match self.tokens[end].text.as_str() {
                    "(" | "[" => {
                        if paren == 0 && first_paren.is_none() && self.tokens[end].text == "(" {
                            first_paren = Some(end);
                        }
                        paren += 1;
                    }
                    ")" | "]" => paren -= 1,
                    ";" | "{" if paren == 0 => break,
                    _ => {}
                }
                end += 1;
            }
            let Some(open) =
                first_paren.filter(|&p| p > start && self.tokens[p - 1].kind == Kind::Ident)
            else {
                return fail(line, "cannot parse the declaration after UFUNCTION(...)");
            };
            let name = self.tokens[open - 1].text.clone();
            class.ufunctions.push(name.clone());
            let is_virtual = self.is(start, "virtual");
            if event && class.kind == ClassKind::IInterface {
                if is_virtual {
                    return fail(
                        line,
                        "BlueprintImplementableEvents in Interfaces must not be declared 'virtual'",
                    );
                }
                class
                    .events
                    .push(self.event(name, native, start, open, end, line)?);
            } else if native && is_virtual {
                return fail(line, "BlueprintNativeEvent functions must be non-virtual.");
            }
            i = end;
        }
        Ok(())
    }

    /// A Blueprint event of an interface: `R Name(params) [const];`.
    pub(super) fn event(
        &self,
        name: String,
        native: bool,
        start: usize,
        open: usize,
        end: usize,
        line: usize,
    ) -> Result<Event> {
        if self.is(end, "{") {
            return fail(
                line,
                format!("the Blueprint event {name} must not have a body (UHT generates it)"),
            );
        }
        if self.is(start, "static") {
            return fail(
                line,
                format!("the Blueprint event {name} must not be static"),
            );
        }
        let ret = self.text(start, open - 1);
        if ret.is_empty() || ret.ends_with('&') {
            return fail(
                line,
                format!("the Blueprint event {name}: unsupported return type {ret:?}"),
            );
        }
        let close = self.matching(open)?;
        let trailer: Vec<&str> = (close + 1..end)
            .map(|t| self.tokens[t].text.as_str())
            .collect();
        let is_const = match trailer.as_slice() {
            [] => false,
            ["const"] => true,
            other => {
                return fail(
                    line,
                    format!(
                        "the Blueprint event {name}: unexpected {:?} after its parameters",
                        other.join(" ")
                    ),
                );
            }
        };
        let mut params = Vec::new();
        let mut from = open + 1;
        let mut level = 0;
        for t in open + 1..=close {
            let text = self.tokens[t].text.as_str();
            match text {
                "(" | "[" | "{" | "<" => level += 1,
                ")" | "]" | "}" | ">" if t != close => level -= 1,
                _ => {}
            }
            if (text == "," && level == 0) || t == close {
                if !(t == close && from == t) {
                    params.push(self.param(&name, from, t, params.len() + 1)?);
                }
                from = t + 1;
            }
        }
        if params.len() == 1 && params[0].ty.is_empty() && params[0].name == "void" {
            params.clear();
        }
        Ok(Event {
            name,
            ret,
            params,
            is_const,
            native,
        })
    }

    pub(super) fn param(
        &self,
        event: &str,
        from: usize,
        to: usize,
        number: usize,
    ) -> Result<Param> {
        let line = self.line(from);
        let mut to = to;
        if let Some(default) = (from..to).find(|&t| self.is(t, "=")) {
            to = default; // default arguments are dropped
        }
        if (from..to).any(|t| self.is(t, "[") || (self.is(t, "&") && self.is(t + 1, "&"))) {
            return fail(line, format!("the Blueprint event {event}: parameter {number} is an array or an rvalue reference"));
        }
        let last = to.checked_sub(1).filter(|&l| l >= from);
        let Some(last) = last.filter(|&l| self.tokens[l].kind == Kind::Ident) else {
            return fail(
                line,
                format!("the Blueprint event {event}: cannot parse parameter {number}"),
            );
        };
        let name = self.tokens[last].text.clone();
        let ty = self.text(from, last);
        if ty.is_empty() && name != "void" {
            return fail(
                line,
                format!("the Blueprint event {event}: parameter {number} ({name}) has no name"),
            );
        }
        if name == "O" {
            return fail(line, format!("the Blueprint event {event}: a parameter named O clashes with Execute_'s object"));
        }
        Ok(Param { ty, name })
    }
}
