# mcpick shell widget for fish. In ~/.config/fish/config.fish:  mcpick shell-init fish | source
#
# The key (default Ctrl-X Ctrl-P) opens mcpick on the terminal; accepting a prompt inserts
# its export at the cursor as one single-quoted word. Cancelling leaves the line as it was.
#   MCPICK_WIDGET_KEY   the key, in bind notation (read once, here), e.g. '\cg'
#   MCPICK_WIDGET_OPTS  more mcpick options, split like shell words, e.g. '--format markdown'
#   MCPICK_BIN          the mcpick to run (read each time the key is pressed)

function mcpick-widget -d 'Insert an mcpick prompt at the cursor'
    set -l bin mcpick # shell-init: bin
    set -q MCPICK_BIN; and test -n "$MCPICK_BIN"; and set bin $MCPICK_BIN
    set -l opts
    # Shell words, so quotes in MCPICK_WIDGET_OPTS work (the user's own setting).
    set -q MCPICK_WIDGET_OPTS; and eval set opts $MCPICK_WIDGET_OPTS
    # The menu needs the terminal on stdin and for its screen; stdout carries the export,
    # kept as one string (string collect), its trailing newlines dropped.
    set -l out (command $bin --print --format text $opts </dev/tty 2>/dev/tty | string collect)
    set -l rc $pipestatus[1]
    # Cancel (130), no match, an error: the line stays exactly as it was.
    if test $rc -eq 0
        # One single-quoted word: inside fish's single quotes only \ and ' are special.
        set -l quoted (string replace -a -- \\ \\\\ "$out" | string replace -a -- "'" "\\'" | string collect)
        commandline -i -- "'$quoted'"
    end
    commandline -f repaint
end

begin
    set -l key $MCPICK_WIDGET_KEY; test -n "$key"; or set key '\cx\cp' # shell-init: key
    # Written as text (also from the environment); fish's own escapes such as \cx apply.
    set key (string unescape -- $key)
    bind $key mcpick-widget
    bind -M insert $key mcpick-widget
end
