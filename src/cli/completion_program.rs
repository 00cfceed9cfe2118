//! Which mcpick a completion script runs at each Tab. The script names the mcpick that made
//! it; when that one is gone (a rebuilt, moved or uninstalled binary), bash, zsh and fish
//! scripts run the `mcpick` PATH finds instead, and with none there they say so once, on the
//! first Tab, instead of an error at every Tab.

/// The word the script runs, written by clap_complete and replaced here (it needs no
/// quoting in any shell).
pub const PLACEHOLDER: &str = "__MCPICK_COMPLETER__";

/// Whether `shell`'s script gets the fallback (the others run `completer` as written).
pub fn applies_to(shell: &str) -> bool {
    matches!(shell, "bash" | "zsh" | "fish")
}

/// What the script says, once, when neither `completer` nor PATH has an mcpick.
fn gone_message(shell: &str, completer: &str) -> String {
    let whence = if completer.contains('/') {
        format!("no mcpick at {completer}, nor on PATH")
    } else {
        "no mcpick on PATH".to_string()
    };
    format!(
        "mcpick completions: {whence}: make this script again with `mcpick completions {shell}` from the mcpick you have now"
    )
}

/// `text` as one single-quoted word for bash and zsh.
fn sh_word(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `text` as one single-quoted word for fish (`\` and `'` escaped inside).
fn fish_word(text: &str) -> String {
    format!("'{}'", text.replace('\\', r"\\").replace('\'', r"\'"))
}

/// `script` (made with [`PLACEHOLDER`] as its program) running `completer`, or the mcpick on
/// PATH when `completer` is gone; `var` is the variable that asks for completions.
pub fn resolve(shell: &str, script: &str, completer: &str, var: &str) -> String {
    // A bare name is looked up on PATH at each Tab anyway.
    let named = if completer.contains('/') {
        completer
    } else {
        ""
    };
    let message = gone_message(shell, completer);
    match shell {
        "bash" => {
            let find = format!(
                r#"    local _mcpick_program={program}
    if [[ ! -x $_mcpick_program ]]; then
        _mcpick_program=$(type -P mcpick)
        if [[ -z $_mcpick_program ]]; then
            if [[ -z ${{_MCPICK_COMPLETE_SAID-}} ]]; then
                _MCPICK_COMPLETE_SAID=1
                printf '\n%s\n' {message} >&2
            fi
            return 0
        fi
    fi
"#,
                program = sh_word(named),
                message = sh_word(&message),
            );
            script
                .replacen(
                    "_clap_complete_mcpick() {\n",
                    &format!("_clap_complete_mcpick() {{\n{find}"),
                    1,
                )
                .replace(&format!("\"{PLACEHOLDER}\""), "\"$_mcpick_program\"")
        }
        "zsh" => {
            let find = format!(
                r#"    local _mcpick_program={program}
    if [[ ! -x $_mcpick_program ]]; then
        _mcpick_program=$(whence -p mcpick 2>/dev/null)
        if [[ -z $_mcpick_program ]]; then
            if (( ! ${{+_MCPICK_COMPLETE_SAID}} )); then
                typeset -g _MCPICK_COMPLETE_SAID=1
                print -u2 -l -r -- '' {message}
            fi
            return 1
        fi
    fi
"#,
                program = sh_word(named),
                message = sh_word(&message),
            );
            script
                .replacen(
                    "function _clap_dynamic_completer_mcpick() {\n",
                    &format!("function _clap_dynamic_completer_mcpick() {{\n{find}"),
                    1,
                )
                .replace(PLACEHOLDER, "\"$_mcpick_program\"")
        }
        "fish" => {
            let function = format!(
                r#"function __mcpick_complete
    set -l program {program}
    if not test -x "$program"
        set program (command -s mcpick)
        if test -z "$program"
            if not set -q __mcpick_complete_said
                set -g __mcpick_complete_said 1
                printf '\n%s\n' {message} >&2
            end
            return
        end
    end
    {var}=fish $program -- (commandline --current-process --tokenize --cut-at-cursor) (commandline --current-token)
end
"#,
                program = fish_word(named),
                message = fish_word(&message),
            );
            // clap_complete's one line runs the program in `--arguments`: a function now.
            let start = script.find("--arguments \"(").unwrap_or(script.len());
            let rest = &script[start..];
            let end = rest.find(")\"").map_or(script.len(), |at| start + at + 2);
            format!(
                "{function}{}--arguments \"(__mcpick_complete)\"{}",
                &script[..start],
                &script[end..]
            )
        }
        _ => script.replace(PLACEHOLDER, completer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_script_falls_back_to_path_and_says_once_when_there_is_none() {
        for shell in ["bash", "zsh", "fish"] {
            let script = super::super::completions::script(shell, "/gone/mc'pick").unwrap();
            assert!(!script.contains(PLACEHOLDER), "{shell}: {script}");
            assert!(
                script.contains("mcpick completions: no mcpick at /gone/mc"),
                "{shell}"
            );
            let lookup = match shell {
                "bash" => "type -P mcpick",
                "zsh" => "whence -p mcpick",
                _ => "command -s mcpick",
            };
            assert!(script.contains(lookup), "{shell}: {script}");
        }
        let bare = super::super::completions::script("bash", "mcpick").unwrap();
        assert!(bare.contains("local _mcpick_program=''"), "{bare}");
        assert!(bare.contains("no mcpick on PATH"), "{bare}");
    }
}
