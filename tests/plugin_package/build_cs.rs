//! The plugin-relative paths `CarlaServerGlue.Build.cs` names, read from
//! its text, so the package test checks what the build rules ask for and
//! breaks when the two drift apart.
//!
//! A small evaluator, not a C# parser: `string X = EXPR;` declarations and
//! the arguments of `File.Exists`, `PublicAdditionalLibraries.Add`,
//! `RuntimeDependencies.Add` and `PublicDelayLoadDLLs.Add`, where EXPR is a
//! string literal (`$(PluginDir)/` dropped), `PluginDirectory`, a declared
//! variable or `Path.Combine(EXPR, ...)`. Anything else (the in-repository
//! `Path.GetFullPath` fallback for the header) is not a path in the plugin.

use std::collections::HashMap;

#[derive(Debug, Default)]
pub(crate) struct BuildCs {
    /// The header `File.Exists` looks for.
    pub(crate) header: Option<String>,
    /// Per platform (`UnrealTargetPlatform.X`): libraries to link and files
    /// to stage, in order.
    pub(crate) libraries: HashMap<String, Vec<String>>,
    pub(crate) runtime: HashMap<String, Vec<String>>,
    pub(crate) delay_load: Vec<String>,
}

fn strip_comments(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut in_string = false;
        let mut end = line.len();
        let bytes = line.as_bytes();
        for i in 0..bytes.len() {
            match bytes[i] {
                b'"' => in_string = !in_string,
                b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => {
                    end = i;
                    break;
                }
                _ => {}
            }
        }
        out.push_str(&line[..end]);
        out.push('\n');
    }
    out
}

/// The text between the `(` at `open` and its matching `)`.
fn inside_parens(text: &str, open: usize) -> &str {
    let mut depth = 0;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 1 => return &text[open + 1..open + i],
            ')' => depth -= 1,
            _ => {}
        }
    }
    panic!("unbalanced parentheses after byte {open} of Build.cs");
}

fn split_args(args: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start, mut in_string) = (Vec::new(), 0, 0, false);
    for (i, c) in args.char_indices() {
        match c {
            '"' => in_string = !in_string,
            '(' if !in_string => depth += 1,
            ')' if !in_string => depth -= 1,
            ',' if !in_string && depth == 0 => {
                parts.push(&args[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&args[start..]);
    parts
}

fn eval(expr: &str, vars: &HashMap<String, String>) -> Option<String> {
    let e = expr.trim();
    if let Some(literal) = e.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        return Some(literal.trim_start_matches("$(PluginDir)/").to_string());
    }
    if e == "PluginDirectory" {
        return Some(String::new());
    }
    if let Some(args) = e
        .strip_prefix("Path.Combine(")
        .and_then(|r| r.strip_suffix(')'))
    {
        let parts: Option<Vec<String>> = split_args(args).iter().map(|a| eval(a, vars)).collect();
        let parts: Vec<String> = parts?.into_iter().filter(|p| !p.is_empty()).collect();
        return Some(parts.join("/"));
    }
    vars.get(e).cloned()
}

pub(crate) fn read(text: &str) -> BuildCs {
    let text = strip_comments(text);
    let mut vars = HashMap::new();
    for (at, _) in text.match_indices("string ") {
        let rest = &text[at + "string ".len()..];
        let Some((name, value)) = rest.split_once('=') else {
            continue;
        };
        let name = name.trim();
        if name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            let value = value.split(';').next().unwrap_or("");
            if let Some(path) = eval(value, &vars) {
                vars.insert(name.to_string(), path);
            }
        }
    }

    let calls = [
        "File.Exists(",
        "PublicAdditionalLibraries.Add(",
        "RuntimeDependencies.Add(",
        "PublicDelayLoadDLLs.Add(",
        "UnrealTargetPlatform.",
    ];
    let mut found: Vec<(usize, &str)> = calls
        .iter()
        .flat_map(|call| text.match_indices(call))
        .collect();
    found.sort();
    let mut cs = BuildCs::default();
    let mut platform = None;
    for (at, call) in found {
        let open = at + call.len() - 1;
        if call == "UnrealTargetPlatform." {
            let name: String = text[open + 1..]
                .chars()
                .take_while(|c| c.is_alphanumeric())
                .collect();
            platform = Some(name);
            continue;
        }
        let Some(path) = eval(inside_parens(&text, open), &vars) else {
            continue;
        };
        let list = match call {
            "File.Exists(" => {
                cs.header = Some(path);
                continue;
            }
            "PublicDelayLoadDLLs.Add(" => {
                cs.delay_load.push(path);
                continue;
            }
            "PublicAdditionalLibraries.Add(" => &mut cs.libraries,
            _ => &mut cs.runtime,
        };
        let platform = platform
            .clone()
            .expect("a library outside a platform branch");
        list.entry(platform).or_default().push(path);
    }
    cs
}
