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

#[path = "uht_emit.rs"]
mod emit;
#[path = "uht_parse.rs"]
mod parse;
#[cfg(test)]
#[path = "uht_tests.rs"]
mod tests;

use emit::emit;
use parse::{Class, ClassKind, Parser};

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
