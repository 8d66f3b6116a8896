//! A miniature of UnrealHeaderTool (UHT) for the stand-in engine
//! (`unreal_glue/Tests/Standin/`).
//!
//! Like UHT, it scans a module's headers and writes `<Name>.generated.h`
//! for each one that declares a `UCLASS`, `UINTERFACE`, `USTRUCT` or
//! `UENUM`. The header includes it as its last include; the generated
//! header sets `CURRENT_FILE_ID` and defines, for each `GENERATED_BODY()`
//! on line L, the macro `<FileId>_<L>_GENERATED_BODY` (`_GENERATED_BODY_LEGACY`
//! for `GENERATED_UCLASS_BODY()`), which the stand-in's `GENERATED_BODY()`
//! names through `CURRENT_FILE_ID` and `__LINE__` (Unreal's
//! `BODY_MACRO_COMBINE`). The bodies declare what the stand-in needs:
//!
//! - `UCLASS` / `UINTERFACE` U-class: `Super` (the declared base),
//!   `ThisClass`, a per-class `static UClass* StaticClass()`, the
//!   `StandinGetClass` override behind `UObject::GetClass()`, and the list
//!   of the class's `UFUNCTION`s (AddDynamic checks it); a UINTERFACE's
//!   U-class also names its I-class (`StandinInterface`), for
//!   `UObject::Implements<UFoo>()`.
//! - The I-class of a UINTERFACE: a protected virtual destructor,
//!   `UClassType`, `ThisClass`, and for every `UFUNCTION(BlueprintNativeEvent)`
//!   or `UFUNCTION(BlueprintImplementableEvent)` declared in it,
//!   `static R Execute_Name(UObject* O, params)` (aborts unless O implements
//!   the interface, as UHT's check) and, for a native event, `virtual R
//!   Name_Implementation(params)` with an empty default body (unless the
//!   I-class declares it). Execute_ of a native event calls `_Implementation`;
//!   of an implementable event, it returns a default value: the stand-in
//!   cannot run Blueprint graphs.
//! - `USTRUCT`: `static UScriptStruct* StaticStruct()` and `Super` if derived.
//!
//! No `.gen.cpp` is written: calling an interface event directly (instead of
//! `Execute_`), or a `UCLASS`'s own Blueprint event, is an undefined symbol
//! at link time (Unreal: a runtime check, and a `ProcessEvent` thunk).
//!
//! It checks what UHT checks that bit us: the generated header is the last
//! include of a reflected header (and no other header includes one), each
//! reflected class has exactly one `GENERATED_BODY()`, a UINTERFACE has its
//! I-class in the same header, Blueprint events in interfaces are not
//! `virtual`. Anything it cannot parse is an error naming file and line.

use std::fs;
use std::path::{Path, PathBuf};

/// Writes `<Name>.generated.h` into `out_dir` for every reflected `*.h` in
/// `public_dir` (not recursive). Call it once per header directory (the
/// plugin's `Public/`, or the simulated game's headers). Panics with
/// `file:line: message` on anything the miniature cannot parse or that
/// UHT would reject.
pub(crate) fn write_generated_headers(public_dir: &Path, out_dir: &Path) {
    fs::create_dir_all(out_dir).unwrap_or_else(|e| panic!("create {}: {e}", out_dir.display()));
    let mut headers: Vec<PathBuf> = fs::read_dir(public_dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", public_dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "h"))
        .collect();
    headers.sort();
    for header in headers {
        let text = fs::read_to_string(&header)
            .unwrap_or_else(|e| panic!("read {}: {e}", header.display()));
        let file_name = header
            .file_name()
            .expect("a file name")
            .to_string_lossy()
            .into_owned();
        match generate(&file_name, &text) {
            Ok(Some(generated)) => {
                let out = out_dir.join(format!("{}.generated.h", stem(&file_name)));
                fs::write(&out, generated)
                    .unwrap_or_else(|e| panic!("write {}: {e}", out.display()));
            }
            Ok(None) => {}
            Err(e) => panic!("{}:{}: {}", header.display(), e.line, e.message),
        }
    }
}

// ------------------------------------------------------------------ errors

#[derive(Debug, PartialEq)]
struct UhtError {
    line: usize,
    message: String,
}

type Result<T> = std::result::Result<T, UhtError>;

fn fail<T>(line: usize, message: impl Into<String>) -> Result<T> {
    Err(UhtError {
        line,
        message: message.into(),
    })
}

fn stem(file_name: &str) -> &str {
    file_name.strip_suffix(".h").unwrap_or(file_name)
}

// ------------------------------------------------------------------- lexing

/// The header without comments, string contents and preprocessor lines
/// (blanked, so offsets and line numbers stay), and its `#include`s.
struct Stripped {
    code: String,
    includes: Vec<(usize, String)>,
}

fn strip(text: &str) -> Result<Stripped> {
    let chars: Vec<char> = text.chars().collect();
    let mut code = String::with_capacity(text.len());
    let mut includes = Vec::new();
    let mut line = 1;
    let mut at_line_start = true;
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                code.push(' ');
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            let start_line = line;
            code.push_str("  ");
            i += 2;
            loop {
                if i >= chars.len() {
                    return fail(start_line, "unterminated /* comment");
                }
                if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    code.push_str("  ");
                    i += 2;
                    break;
                }
                if chars[i] == '\n' {
                    line += 1;
                }
                code.push(blank(chars[i]));
                i += 1;
            }
            continue;
        }
        if c == '#' && at_line_start {
            // A directive, with its continuation lines; comments dropped.
            let start_line = line;
            let mut directive = String::new();
            while i < chars.len() && chars[i] != '\n' {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'/') {
                    while i < chars.len() && chars[i] != '\n' {
                        code.push(' ');
                        i += 1;
                    }
                    break;
                }
                if chars[i] == '\\' && chars.get(i + 1) == Some(&'\n') {
                    code.push_str(" \n");
                    line += 1;
                    i += 2;
                    continue;
                }
                directive.push(chars[i]);
                code.push(' ');
                i += 1;
            }
            let words: String = directive[1..].trim_start().to_owned();
            if let Some(rest) = words.strip_prefix("include") {
                includes.push((start_line, rest.trim().to_owned()));
            }
            continue;
        }
        let digit_separator = c == '\'' && i > 0 && chars[i - 1].is_ascii_alphanumeric();
        if (c == '"' || c == '\'') && !digit_separator {
            let start_line = line;
            code.push(c);
            i += 1;
            loop {
                match chars.get(i) {
                    None | Some('\n') => return fail(start_line, "unterminated literal"),
                    Some('\\') => {
                        code.push_str("  ");
                        i += 2;
                    }
                    Some(&q) if q == c => {
                        code.push(c);
                        i += 1;
                        break;
                    }
                    Some(_) => {
                        code.push(' ');
                        i += 1;
                    }
                }
            }
            at_line_start = false;
            continue;
        }
        if c == '\n' {
            line += 1;
            at_line_start = true;
        } else if !c.is_whitespace() {
            at_line_start = false;
        }
        code.push(c);
        i += 1;
    }
    Ok(Stripped { code, includes })
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Ident,
    Number,
    Literal,
    Punct,
}

#[derive(Clone, Debug)]
struct Token {
    kind: Kind,
    text: String,
    line: usize,
    start: usize,
    end: usize,
}

fn tokenize(code: &str) -> Vec<Token> {
    let bytes = code.as_bytes();
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\n' {
            line += 1;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let kind = if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80)
            {
                i += 1;
            }
            Kind::Ident
        } else if c.is_ascii_digit() {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.' || bytes[i] == b'\'')
            {
                i += 1;
            }
            Kind::Number
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < bytes.len() && bytes[i] != c {
                i += 1;
            }
            i += 1;
            Kind::Literal
        } else {
            i += if c == b':' && bytes.get(i + 1) == Some(&b':') {
                2
            } else {
                1
            };
            Kind::Punct
        };
        tokens.push(Token {
            kind,
            text: code[start..i].to_owned(),
            line,
            start,
            end: i,
        });
    }
    tokens
}

// ------------------------------------------------------------------ parsing

#[derive(Clone, Copy, Debug, PartialEq)]
enum ClassKind {
    UClass,
    UInterface,
    IInterface,
    UStruct,
}

impl ClassKind {
    fn macro_name(self) -> &'static str {
        match self {
            ClassKind::UClass => "UCLASS",
            ClassKind::UInterface => "UINTERFACE",
            ClassKind::IInterface => "the I-class of a UINTERFACE",
            ClassKind::UStruct => "USTRUCT",
        }
    }
}

#[derive(Debug)]
struct Param {
    ty: String,
    name: String,
}

#[derive(Debug)]
struct Event {
    name: String,
    ret: String,
    params: Vec<Param>,
    is_const: bool,
    native: bool,
}

#[derive(Debug)]
struct Class {
    kind: ClassKind,
    name: String,
    super_class: Option<String>,
    line: usize,
    open: usize,
    close: usize,
    /// The GENERATED_BODY line and whether it is GENERATED_UCLASS_BODY.
    body: Option<(usize, bool)>,
    ufunctions: Vec<String>,
    events: Vec<Event>,
    /// Identifiers declared in the body (to see a user-declared `_Implementation`).
    declares: Vec<String>,
}

struct ClassHead {
    name: String,
    bases: Vec<(String, String)>, // (access, type)
    open: usize,
}

struct Parser<'a> {
    code: &'a str,
    tokens: Vec<Token>,
    /// Brace depth before each token.
    depth: Vec<usize>,
}

impl<'a> Parser<'a> {
    fn new(code: &'a str) -> Parser<'a> {
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

    fn is(&self, index: usize, text: &str) -> bool {
        self.tokens.get(index).is_some_and(|t| t.text == text)
    }

    fn line(&self, index: usize) -> usize {
        self.tokens
            .get(index)
            .or(self.tokens.last())
            .map_or(1, |t| t.line)
    }

    /// The index of the bracket closing the one at `open`.
    fn matching(&self, open: usize) -> Result<usize> {
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
    fn text(&self, from: usize, to: usize) -> String {
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
    fn class_head(&self, at: usize) -> Result<Option<ClassHead>> {
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

    fn class(&self, kind: ClassKind, head: ClassHead, line: usize) -> Result<Class> {
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
    fn functions(&self, class: &mut Class) -> Result<()> {
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
    fn event(
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

    fn param(&self, event: &str, from: usize, to: usize, number: usize) -> Result<Param> {
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

// ---------------------------------------------------------------- generation

/// The generated header for `file_name` (None: no reflection macros).
fn generate(file_name: &str, text: &str) -> Result<Option<String>> {
    let stripped = strip(text)?;
    let parser = Parser::new(&stripped.code);
    let tokens = &parser.tokens;
    let stem = stem(file_name);
    let generated_include = format!("{stem}.generated.h");

    let mut classes: Vec<Class> = Vec::new();
    let mut reflected = false;
    let mut i = 0;
    while i < tokens.len() {
        let macro_name = tokens[i].text.as_str();
        let kind = match macro_name {
            "UCLASS" => Some(ClassKind::UClass),
            "UINTERFACE" => Some(ClassKind::UInterface),
            "USTRUCT" => Some(ClassKind::UStruct),
            "UENUM" => None,
            _ => {
                i += 1;
                continue;
            }
        };
        if !parser.is(i + 1, "(") {
            i += 1;
            continue;
        }
        reflected = true;
        let line = tokens[i].line;
        let after = parser.matching(i + 1)? + 1;
        let Some(kind) = kind else {
            if !parser.is(after, "enum") {
                return fail(line, "expected `enum` after UENUM(...)");
            }
            i = after;
            continue;
        };
        let Some(head) = parser.class_head(after)? else {
            return fail(line, format!("{macro_name} before a forward declaration"));
        };
        let class = parser.class(kind, head, line)?;
        i = class.close + 1;
        if kind == ClassKind::UInterface {
            let Some(rest) = class.name.strip_prefix('U') else {
                return fail(
                    line,
                    format!("UINTERFACE {}: the name must start with U", class.name),
                );
            };
            let interface_name = format!("I{rest}");
            let mut found = None;
            for at in class.close + 1..tokens.len() {
                // `class [X_API] IName` at namespace level (not a template's `class T`).
                let mut name_at = at + 1;
                while tokens
                    .get(name_at)
                    .is_some_and(|t| t.kind == Kind::Ident && t.text.ends_with("_API"))
                {
                    name_at += 1;
                }
                if parser.depth[at] == 0
                    && parser.is(at, "class")
                    && parser.is(name_at, &interface_name)
                {
                    if let Some(head) = parser.class_head(at)? {
                        found = Some(parser.class(ClassKind::IInterface, head, tokens[at].line)?);
                        break;
                    }
                }
            }
            let Some(interface) = found else {
                return fail(
                    line,
                    format!(
                        "UINTERFACE {}: no `class {interface_name}` in this header",
                        class.name
                    ),
                );
            };
            classes.push(class);
            classes.push(interface);
            continue;
        }
        classes.push(class);
    }

    // The GENERATED_*BODY() lines, each directly inside one reflected class.
    for (index, token) in tokens.iter().enumerate() {
        let legacy = match token.text.as_str() {
            "GENERATED_BODY" | "GENERATED_USTRUCT_BODY" => false,
            "GENERATED_UCLASS_BODY" => true,
            "GENERATED_IINTERFACE_BODY" | "GENERATED_UINTERFACE_BODY" => {
                return fail(
                    token.line,
                    format!(
                        "{}() is not supported by the mini-UHT: use GENERATED_BODY()",
                        token.text
                    ),
                );
            }
            _ => continue,
        };
        if !parser.is(index + 1, "(") {
            continue;
        }
        let close = parser.matching(index + 1)?;
        if tokens[close].line != token.line {
            return fail(token.line, format!("{}() must be on one line", token.text));
        }
        let owner = classes
            .iter_mut()
            .filter(|c| c.open < index && index < c.close)
            .min_by_key(|c| c.close - c.open);
        let Some(owner) = owner.filter(|c| parser.depth[index] == parser.depth[c.open] + 1) else {
            return fail(
                token.line,
                format!(
                    "{}() outside a UCLASS, USTRUCT or UINTERFACE class body",
                    token.text
                ),
            );
        };
        let wrong_macro = match token.text.as_str() {
            "GENERATED_UCLASS_BODY" => {
                !matches!(owner.kind, ClassKind::UClass | ClassKind::UInterface)
            }
            "GENERATED_USTRUCT_BODY" => owner.kind != ClassKind::UStruct,
            _ => false,
        };
        if wrong_macro {
            return fail(
                token.line,
                format!(
                    "{}() in {} {}",
                    token.text,
                    owner.kind.macro_name(),
                    owner.name
                ),
            );
        }
        if owner.body.is_some() {
            return fail(
                token.line,
                format!("a second GENERATED_BODY() in {}", owner.name),
            );
        }
        owner.body = Some((token.line, legacy));
    }
    for class in &mut classes {
        if class.body.is_none() {
            return fail(
                class.line,
                format!(
                    "{} {} has no GENERATED_BODY()",
                    class.kind.macro_name(),
                    class.name
                ),
            );
        }
        parser.functions(class)?;
    }

    // UHT's include rule.
    let include_target = |spec: &str| {
        spec.trim_matches(|c| c == '"' || c == '<' || c == '>')
            .to_owned()
    };
    if !reflected {
        if let Some((line, spec)) = stripped
            .includes
            .iter()
            .find(|(_, s)| include_target(s).ends_with(".generated.h"))
        {
            return fail(
                *line,
                format!("includes {spec} but declares no UCLASS, USTRUCT, UINTERFACE or UENUM"),
            );
        }
        return Ok(None);
    }
    match stripped.includes.last() {
        Some((_, spec)) if include_target(spec) == generated_include => {}
        last => {
            return fail(
                last.map_or(1, |(line, _)| *line),
                format!("the last #include must be \"{generated_include}\" (UHT: the generated header goes last)"),
            )
        }
    }
    if let Some((line, spec)) = stripped.includes[..stripped.includes.len() - 1]
        .iter()
        .find(|(_, s)| include_target(s).ends_with(".generated.h"))
    {
        return fail(*line, format!("includes another generated header, {spec}"));
    }

    Ok(Some(emit(file_name, &classes)))
}

fn emit(file_name: &str, classes: &[Class]) -> String {
    let stem = stem(file_name);
    let id: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let file_id = format!("FID_{id}_h");
    let mut out = Vec::new();
    out.push(format!(
        "// Generated by tests/unreal_glue/uht.rs (a miniature of UnrealHeaderTool) from {file_name}. Do not edit."
    ));
    out.push(format!("#ifdef STANDIN_{id}_generated_h"));
    out.push(format!(
        "#error \"{stem}.generated.h already included, missing '#pragma once' in {file_name}\""
    ));
    out.push("#endif".into());
    out.push(format!("#define STANDIN_{id}_generated_h"));
    out.push(String::new());
    for class in classes.iter().filter(|c| c.kind == ClassKind::IInterface) {
        out.push(format!("class {};", class.name));
    }
    for class in classes {
        let (line, legacy) = class.body.expect("checked above");
        let suffix = if legacy {
            "GENERATED_BODY_LEGACY"
        } else {
            "GENERATED_BODY"
        };
        let body = match class.kind {
            ClassKind::UClass | ClassKind::UInterface => uclass_body(class, legacy),
            ClassKind::IInterface => interface_body(class, classes),
            ClassKind::UStruct => ustruct_body(class),
        };
        out.push(String::new());
        out.push(format!("#define {file_id}_{line}_{suffix} \\"));
        for body_line in body {
            out.push(format!("\t{body_line} \\"));
        }
        out.push(String::new());
    }
    out.push(String::new());
    out.push("#undef CURRENT_FILE_ID".into());
    out.push(format!("#define CURRENT_FILE_ID {file_id}"));
    out.push(String::new());
    out.join("\n")
}

fn ufunction_check(class: &Class) -> String {
    if class.ufunctions.is_empty() {
        return "return Super::StandinIsUFunction(InName);".into();
    }
    let names: Vec<String> = class
        .ufunctions
        .iter()
        .map(|n| format!("TEXT(\"{n}\")"))
        .collect();
    format!(
        "return StandinNameIn(InName, {{{}}}) || Super::StandinIsUFunction(InName);",
        names.join(", ")
    )
}

fn uclass_body(class: &Class, legacy: bool) -> Vec<String> {
    let name = &class.name;
    let mut body = vec![
        "public:".to_owned(),
        format!(
            "using Super = {};",
            class
                .super_class
                .as_deref()
                .expect("checked in Parser::class")
        ),
        format!("using ThisClass = {name};"),
        format!("using StandinReflectedClass = {name};"),
    ];
    if class.kind == ClassKind::UInterface {
        body.push(format!("using StandinInterface = I{};", &name[1..]));
    }
    body.extend([
        "static UClass* StaticClass()".to_owned(),
        "{".to_owned(),
        format!("\tstatic UClass StandinClass(TEXT(\"{name}\"), Super::StaticClass());"),
        "\treturn &StandinClass;".to_owned(),
        "}".to_owned(),
        "UClass* StandinGetClass() const override { return StaticClass(); }".to_owned(),
        format!(
            "static bool StandinIsUFunction(const TCHAR* InName) {{ {} }}",
            ufunction_check(class)
        ),
        if legacy { "public:" } else { "private:" }.to_owned(),
    ]);
    body
}

fn interface_body(class: &Class, classes: &[Class]) -> Vec<String> {
    let name = &class.name;
    let u_name = format!("U{}", &name[1..]);
    debug_assert!(classes.iter().any(|c| c.name == u_name));
    let mut body = vec![
        "protected:".to_owned(),
        format!("virtual ~{name}() {{}}"),
        "public:".to_owned(),
        format!("using UClassType = {u_name};"),
        format!("using ThisClass = {name};"),
    ];
    for event in &class.events {
        let constness = if event.is_const { " const" } else { "" };
        let object = if event.is_const {
            "const UObject* O"
        } else {
            "UObject* O"
        };
        let types: Vec<&str> = event.params.iter().map(|p| p.ty.as_str()).collect();
        let typed: Vec<String> = event
            .params
            .iter()
            .map(|p| format!("{} {}", p.ty, p.name))
            .collect();
        let names: Vec<&str> = event.params.iter().map(|p| p.name.as_str()).collect();
        let returns = event.ret != "void";
        let default_return = if returns { " return {};" } else { "" };
        let implementation = format!("{}_Implementation", event.name);
        let lookup = format!(
            "StandinInterfaceFor<{name}>(O, \"{name}::Execute_{}\")",
            event.name
        );
        if event.native {
            if !class.declares.contains(&implementation) {
                body.push(format!(
                    "virtual {} {implementation}({}){constness} {{{default_return} }}",
                    event.ret,
                    types.join(", ")
                ));
            }
            body.push(format!(
                "static {} Execute_{}({})",
                event.ret,
                event.name,
                std::iter::once(object.to_owned())
                    .chain(typed)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            body.push(format!(
                "{{ {}{lookup}->{implementation}({}); }}",
                if returns { "return " } else { "" },
                names.join(", ")
            ));
        } else {
            // Implementable: only a Blueprint graph implements it (never run here).
            body.push(format!(
                "static {} Execute_{}({})",
                event.ret,
                event.name,
                std::iter::once(object.to_owned())
                    .chain(types.iter().map(|t| (*t).to_owned()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            body.push(format!("{{ (void){lookup};{default_return} }}"));
        }
    }
    body.push("private:".to_owned());
    body
}

fn ustruct_body(class: &Class) -> Vec<String> {
    let mut body = vec![format!(
        "static UScriptStruct* StaticStruct() {{ static UScriptStruct StandinStruct(TEXT(\"{}\")); return &StandinStruct; }}",
        class.name
    )];
    if let Some(base) = &class.super_class {
        body.push(format!("using Super = {base};"));
    }
    body
}

// ------------------------------------------------------------------- tests

#[cfg(test)]
mod tests {
    use super::*;

    fn generated(file: &str, text: &str) -> String {
        match generate(file, text) {
            Ok(Some(out)) => out,
            other => panic!("{file}: {other:?}"),
        }
    }

    fn error(file: &str, text: &str) -> UhtError {
        match generate(file, text) {
            Err(e) => e,
            Ok(out) => panic!("{file}: expected an error, got {out:?}"),
        }
    }

    const ACTOR: &str = r#"// An actor.
#pragma once

#include "CoreMinimal.h"
#include "GameFramework/Actor.h"
#include "MyActor.generated.h"

/* UCLASS( in a comment is not a class */
UCLASS(Blueprintable, meta = (ToolTip = "a { brace"))
class MYMODULE_API AMyActor
	: public AActor
{
	GENERATED_BODY()

public:
	UFUNCTION()
	void OnHit(AActor* SelfActor, AActor* OtherActor, FVector NormalImpulse, const FHitResult& Hit);

	UFUNCTION(BlueprintCallable, Category = "X")
	int32 Count() const { return 3; }

	void NotReflected();
};
"#;

    #[test]
    fn a_uclass_gets_super_its_class_and_its_ufunctions_at_its_line() {
        let out = generated("MyActor.h", ACTOR);
        assert!(out.contains("#define FID_MyActor_h_13_GENERATED_BODY \\\n\tpublic: \\\n\tusing Super = AActor; \\\n\tusing ThisClass = AMyActor; \\"), "{out}");
        assert!(
            out.contains("static UClass StandinClass(TEXT(\"AMyActor\"), Super::StaticClass());"),
            "{out}"
        );
        assert!(
            out.contains("StandinNameIn(InName, {TEXT(\"OnHit\"), TEXT(\"Count\")})"),
            "{out}"
        );
        assert!(out.contains("\tprivate: \\\n\n"), "{out}");
        assert!(
            out.ends_with("#undef CURRENT_FILE_ID\n#define CURRENT_FILE_ID FID_MyActor_h\n"),
            "{out}"
        );
        assert!(out.contains(
            "#error \"MyActor.generated.h already included, missing '#pragma once' in MyActor.h\""
        ));
    }

    #[test]
    fn super_is_the_declared_base_even_a_reflected_one() {
        let text = "#pragma once\n#include \"MyActor.h\"\n#include \"Derived.generated.h\"\nUCLASS()\nclass ADerived final : public AMyActor, public IOther\n{\n\tGENERATED_UCLASS_BODY()\n};\n";
        let out = generated("Derived.h", text);
        assert!(
            out.contains("#define FID_Derived_h_7_GENERATED_BODY_LEGACY \\"),
            "{out}"
        );
        assert!(out.contains("using Super = AMyActor;"), "{out}");
        assert!(
            out.contains("return Super::StandinIsUFunction(InName);"),
            "{out}"
        );
        assert!(
            out.contains("\tpublic: \\\n\n"),
            "legacy bodies end public: {out}"
        );
    }

    const INTERFACE: &str = r#"#pragma once

#include "CoreMinimal.h"
#include "UObject/Interface.h"
#include "CarlaVehicleControl.generated.h"

UINTERFACE(MinimalAPI)
class UCarlaVehicleControl : public UInterface
{
	GENERATED_BODY()
};

class CARLASERVERGLUE_API ICarlaVehicleControl
{
	GENERATED_BODY()

public:
	/** The client's control. */
	UFUNCTION(BlueprintNativeEvent, BlueprintCallable, Category = "CARLA")
	void ApplyCarlaControl(float Steer, float Throttle, float Brake,
		bool bHandBrake, bool bReverse);

	UFUNCTION(BlueprintImplementableEvent, meta = (DisplayName = "Speed (m/s)"))
	float GetSpeed(const TMap<FString, int32>& Options, int32 Gear = 1) const;

	UFUNCTION(BlueprintNativeEvent)
	FString Describe();
	virtual FString Describe_Implementation() { return TEXT("mine"); }

	virtual void PlainPureVirtual() = 0;
};
"#;

    #[test]
    fn an_interface_gets_execute_and_implementation_functions() {
        let out = generated("CarlaVehicleControl.h", INTERFACE);
        assert!(out.contains("\nclass ICarlaVehicleControl;\n"), "{out}");
        assert!(
            out.contains("#define FID_CarlaVehicleControl_h_10_GENERATED_BODY \\"),
            "{out}"
        );
        assert!(out.contains("using Super = UInterface;"), "{out}");
        assert!(
            out.contains("using StandinInterface = ICarlaVehicleControl;"),
            "{out}"
        );
        assert!(out.contains("#define FID_CarlaVehicleControl_h_15_GENERATED_BODY \\\n\tprotected: \\\n\tvirtual ~ICarlaVehicleControl() {} \\\n\tpublic: \\\n\tusing UClassType = UCarlaVehicleControl; \\\n\tusing ThisClass = ICarlaVehicleControl; \\"), "{out}");
        assert!(out.contains("\tvirtual void ApplyCarlaControl_Implementation(float, float, float, bool, bool) { } \\"), "{out}");
        assert!(out.contains("\tstatic void Execute_ApplyCarlaControl(UObject* O, float Steer, float Throttle, float Brake, bool bHandBrake, bool bReverse) \\\n\t{ StandinInterfaceFor<ICarlaVehicleControl>(O, \"ICarlaVehicleControl::Execute_ApplyCarlaControl\")->ApplyCarlaControl_Implementation(Steer, Throttle, Brake, bHandBrake, bReverse); } \\"), "{out}");
        // Implementable, const, a template parameter with a comma, a default argument.
        assert!(out.contains("\tstatic float Execute_GetSpeed(const UObject* O, const TMap<FString, int32>&, int32) \\\n\t{ (void)StandinInterfaceFor<ICarlaVehicleControl>(O, \"ICarlaVehicleControl::Execute_GetSpeed\"); return {}; } \\"), "{out}");
        assert!(!out.contains("GetSpeed_Implementation"), "{out}");
        // A user-declared _Implementation is not declared again.
        assert!(
            !out.contains("virtual FString Describe_Implementation"),
            "{out}"
        );
        assert!(out.contains("{ return StandinInterfaceFor<ICarlaVehicleControl>(O, \"ICarlaVehicleControl::Execute_Describe\")->Describe_Implementation(); }"), "{out}");
        assert!(!out.contains("PlainPureVirtual"), "{out}");
    }

    #[test]
    fn a_ustruct_gets_its_struct_and_super() {
        let text = "#pragma once\n#include \"S.generated.h\"\nUSTRUCT(BlueprintType)\nstruct FBase\n{\n\tGENERATED_BODY()\n\tUPROPERTY() int32 X = 0;\n};\nUSTRUCT()\nstruct FDerived : public FBase\n{\n\tGENERATED_USTRUCT_BODY()\n};\nUENUM()\nenum class EKind : uint8 { A, B };\n";
        let out = generated("S.h", text);
        assert!(out.contains("#define FID_S_h_6_GENERATED_BODY \\\n\tstatic UScriptStruct* StaticStruct() { static UScriptStruct StandinStruct(TEXT(\"FBase\")); return &StandinStruct; } \\\n\n"), "{out}");
        assert!(
            out.contains("#define FID_S_h_12_GENERATED_BODY \\"),
            "{out}"
        );
        assert!(out.contains("using Super = FBase;"), "{out}");
    }

    #[test]
    fn a_header_without_reflection_gets_nothing() {
        let text = "#pragma once\n#include \"CoreMinimal.h\"\n// UCLASS() in a comment\nclass FPlain { const char* S = \"UCLASS()\"; };\n";
        assert_eq!(generate("Plain.h", text), Ok(None));
    }

    #[test]
    fn include_rules_are_checked_with_their_lines() {
        let no_generated = "#pragma once\n#include \"CoreMinimal.h\"\nUCLASS()\nclass AX : public AActor\n{\n\tGENERATED_BODY()\n};\n";
        assert_eq!(error("X.h", no_generated).line, 2);
        let not_last = "#pragma once\n#include \"X.generated.h\"\n#include \"Other.h\"\nUCLASS()\nclass AX : public AActor\n{\n\tGENERATED_BODY()\n};\n";
        let e = error("X.h", not_last);
        assert_eq!(e.line, 3);
        assert!(
            e.message
                .contains("the last #include must be \"X.generated.h\""),
            "{e:?}"
        );
        let stray = "#pragma once\n#include \"Plain.generated.h\"\nclass FPlain {};\n";
        let e = error("Plain.h", stray);
        assert_eq!(
            (e.line, e.message.contains("declares no UCLASS")),
            (2, true),
            "{e:?}"
        );
    }

    #[test]
    fn malformed_reflection_is_an_error_naming_the_line() {
        let cases: &[(&str, usize, &str)] = &[
            ("#include \"X.generated.h\"\nUCLASS()\nclass AX : public AActor\n{\n};\n", 2, "has no GENERATED_BODY()"),
            ("#include \"X.generated.h\"\nUCLASS()\nclass {\n\tGENERATED_BODY()\n};\n", 3, "cannot parse the class declaration"),
            ("#include \"X.generated.h\"\nUCLASS()\nclass AX\n{\n\tGENERATED_BODY()\n};\n", 2, "has no base class"),
            ("#include \"X.generated.h\"\nUCLASS()\nclass AX : AActor\n{\n\tGENERATED_BODY()\n};\n", 2, "must derive publicly"),
            ("#include \"X.generated.h\"\nUCLASS()\nclass AX : public AActor\n{\n\tGENERATED_BODY()\n\tGENERATED_BODY()\n};\n", 6, "a second GENERATED_BODY()"),
            ("#include \"X.generated.h\"\nclass FX\n{\n\tGENERATED_BODY()\n};\nUENUM()\nenum E { A };\n", 4, "outside a UCLASS"),
            ("#include \"X.generated.h\"\nUINTERFACE()\nclass UX : public UInterface\n{\n\tGENERATED_BODY()\n};\n", 2, "no `class IX` in this header"),
            (
                "#include \"X.generated.h\"\nUINTERFACE()\nclass UX : public UInterface\n{\n\tGENERATED_BODY()\n};\nclass IX\n{\n\tGENERATED_BODY()\n\tUFUNCTION(BlueprintNativeEvent)\n\tvirtual void F();\n};\n",
                10,
                "must not be declared 'virtual'",
            ),
            (
                "#include \"X.generated.h\"\nUINTERFACE()\nclass UX : public UInterface\n{\n\tGENERATED_BODY()\n};\nclass IX\n{\n\tGENERATED_BODY()\n\tUFUNCTION(BlueprintNativeEvent)\n\tvoid F(float);\n};\n",
                11,
                "parameter 1 (float) has no name",
            ),
            (
                "#include \"X.generated.h\"\nUINTERFACE()\nclass UX : public UInterface\n{\n\tGENERATED_BODY()\n};\nclass IX\n{\n\tGENERATED_BODY()\n\tUFUNCTION(BlueprintImplementableEvent)\n\tvoid F() {}\n};\n",
                10,
                "must not have a body",
            ),
            ("#include \"X.generated.h\"\nUCLASS()\nclass AX : public AActor\n{\n\tGENERATED_BODY(\n\t)\n};\n", 5, "must be on one line"),
            ("#include \"X.generated.h\"\n/* open\nUCLASS()\n", 2, "unterminated /* comment"),
            ("#include \"X.generated.h\"\nUCLASS()\nclass AX : public AActor\n{\n\tUFUNCTION()\n\tint32 = 3;\n\tGENERATED_BODY()\n};\n", 5, "cannot parse the declaration after UFUNCTION"),
        ];
        for (text, line, message) in cases {
            let e = error("X.h", text);
            assert!(
                e.line == *line && e.message.contains(message),
                "{text}\n→ {e:?}, expected line {line}: {message}"
            );
        }
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("standin_uht_{name}_{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create a temporary directory");
        dir
    }

    #[test]
    fn write_generated_headers_writes_one_per_reflected_header() {
        let dir = temp_dir("write");
        let (public, out) = (dir.join("Public"), dir.join("gen"));
        fs::create_dir_all(&public).unwrap();
        fs::write(public.join("MyActor.h"), ACTOR).unwrap();
        fs::write(public.join("Plain.h"), "#pragma once\nstruct FPlain {};\n").unwrap();
        fs::write(public.join("Notes.txt"), "UCLASS()").unwrap();
        write_generated_headers(&public, &out);
        let mut written: Vec<String> = fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        written.sort();
        assert_eq!(written, ["MyActor.generated.h"]);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    #[should_panic(expected = "Bad.h:2: the last #include must be")]
    fn write_generated_headers_panics_naming_the_file_and_line() {
        let dir = temp_dir("panic");
        fs::write(dir.join("Bad.h"), "#pragma once\n#include \"CoreMinimal.h\"\nUCLASS()\nclass AX : public AActor\n{\n\tGENERATED_BODY()\n};\n").unwrap();
        write_generated_headers(&dir, &dir.join("gen"));
    }

    /// The plugin's own headers go through (whatever shape they have now).
    #[test]
    fn the_glue_headers_are_understood() {
        let public =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("unreal_glue/Source/CarlaServerGlue/Public");
        let dir = temp_dir("glue");
        write_generated_headers(&public, &dir);
        for header in [
            "CarlaServerActor",
            "CarlaVehicleControl",
            "RayCastLidar",
            "SafeDistanceSensor",
            "SceneCaptureCameraActor",
        ] {
            let text = fs::read_to_string(dir.join(format!("{header}.generated.h"))).unwrap();
            assert!(
                text.contains(&format!("#define CURRENT_FILE_ID FID_{header}_h")),
                "{header}: {text}"
            );
        }
        let _ = fs::remove_dir_all(&dir);
    }
}
