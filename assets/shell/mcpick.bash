# mcpick shell widget for bash. In ~/.bashrc:  eval "$(mcpick shell-init bash)"
#
# The key (default Ctrl-X Ctrl-P) opens mcpick on the terminal; accepting a prompt inserts
# its export at the cursor as one single-quoted word. Cancelling leaves the line as it was.
#   MCPICK_WIDGET_KEY   the key, in readline notation (read once, here), e.g. '\C-g'
#   MCPICK_WIDGET_OPTS  more mcpick options, split like shell words, e.g. '--format markdown'
#   MCPICK_BIN          the mcpick to run (read each time the key is pressed)

if [[ $- == *i* ]]; then
if ((BASH_VERSINFO[0] < 4)); then
  # bind -x with READLINE_LINE came in bash 4.0 (macOS still ships 3.2).
  echo "mcpick shell-init bash: the widget needs bash 4 or newer" >&2
else

__mcpick_widget() {
  local bin=${MCPICK_BIN:-mcpick} # shell-init: bin
  local -a opts=()
  # Shell words, so quotes in MCPICK_WIDGET_OPTS work (the user's own setting); no globbing,
  # so `-q a*` stays `a*` whatever files are here.
  local globbing=1
  [[ $- == *f* ]] && globbing=0
  set -f
  eval "opts=(${MCPICK_WIDGET_OPTS-})"
  local parsed=$?
  ((globbing)) && set +f
  ((parsed == 0)) || return
  local out rc
  # The menu needs the terminal on stdin and for its screen; stdout carries the export.
  out=$(command "$bin" --print --format text "${opts[@]}" </dev/tty 2>/dev/tty)
  rc=$?
  # Cancel (130), no match, an error: the line stays exactly as it was.
  ((rc == 0)) || return 0
  # One single-quoted word: only ' needs care ('\''); newlines, $, \, ` and " stay literal.
  # $(…) dropped the export's trailing newlines, which no argument wants.
  local quoted="'${out//\'/\'\\\'\'}'"
  READLINE_LINE=${READLINE_LINE:0:READLINE_POINT}$quoted${READLINE_LINE:READLINE_POINT}
  READLINE_POINT=$((READLINE_POINT + ${#quoted}))
}

__mcpick_key=${MCPICK_WIDGET_KEY:-'\C-x\C-p'} # shell-init: key
bind -m emacs-standard -x "\"$__mcpick_key\": __mcpick_widget"
bind -m vi-insert -x "\"$__mcpick_key\": __mcpick_widget"
bind -m vi-command -x "\"$__mcpick_key\": __mcpick_widget"
unset __mcpick_key

fi
fi
