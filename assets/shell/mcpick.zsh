# mcpick shell widget for zsh. In ~/.zshrc:  eval "$(mcpick shell-init zsh)"
#
# The key (default Ctrl-X Ctrl-P) opens mcpick on the terminal; accepting a prompt inserts
# its export at the cursor as one single-quoted word. Cancelling leaves the line as it was.
#   MCPICK_WIDGET_KEY   the key, in bindkey notation (read once, here), e.g. '^G'
#   MCPICK_WIDGET_OPTS  more mcpick options, split like shell words, e.g. '--format markdown'
#   MCPICK_BIN          the mcpick to run (read each time the key is pressed)

if [[ -o interactive ]]; then

mcpick-widget() {
  emulate -L zsh
  local bin=${MCPICK_BIN:-mcpick} # shell-init: bin
  # Shell words with their quotes removed, so quotes in MCPICK_WIDGET_OPTS work.
  local -a opts=()
  [[ -n ${MCPICK_WIDGET_OPTS-} ]] && opts=("${(@Q)${(z)MCPICK_WIDGET_OPTS}}")
  local out rc
  # The menu needs the terminal on stdin and for its screen; stdout carries the export.
  out=$(command "$bin" --print --format text "${opts[@]}" </dev/tty 2>/dev/tty)
  rc=$?
  # Cancel (130), no match, an error: the line stays exactly as it was.
  if (( rc == 0 )); then
    # One single-quoted word ('\'' for a quote); $(…) dropped the trailing newlines.
    LBUFFER+=${(qq)out}
  fi
  zle reset-prompt
  return 0
}

() {
  local key=${MCPICK_WIDGET_KEY:-'^X^P'} # shell-init: key
  zle -N mcpick-widget
  bindkey -M emacs "$key" mcpick-widget
  bindkey -M viins "$key" mcpick-widget
  bindkey -M vicmd "$key" mcpick-widget
}

fi
