#!/usr/bin/env python3
"""A terminal screen as SVG: reads `tmux capture-pane -e -p` output (text with SGR colour
sequences) on stdin and writes an SVG of it on stdout. Standard library only.

    ansi_svg.py COLUMNS ROWS [TITLE] < screen.ansi > screen.svg

Each cell is placed on a fixed grid (wide characters take two cells, combining marks none),
each run of one style is one <text> stretched to its cells, so the picture does not depend
on the reader's font widths. Colours: a dark terminal's (the 16 colours of VS Code's dark
theme, xterm's 256-colour cube and greys, and 24-bit colours as given).
"""

import html
import re
import sys
import unicodedata

CELL_W, CELL_H, FONT = 9.0, 18, 15
PAD = 12
DEFAULT_FG, DEFAULT_BG = "#cccccc", "#1e1e1e"
BASE16 = [
    "#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
    "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
]


def indexed(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        levels = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (levels[n // 36], levels[n // 6 % 6], levels[n % 6])
    grey = 8 + 10 * (n - 232)
    return "#%02x%02x%02x" % (grey, grey, grey)


def width(ch):
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


class Style:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = self.bg = None
        self.bold = self.dim = self.italic = self.underline = self.reverse = False

    def key(self):
        return (self.fg, self.bg, self.bold, self.dim, self.italic, self.underline, self.reverse)

    def apply(self, params):
        codes = [int(p) if p else 0 for p in params.split(";")] if params else [0]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                self.reset()
            elif c == 1:
                self.bold = True
            elif c == 2:
                self.dim = True
            elif c == 3:
                self.italic = True
            elif c == 4:
                self.underline = True
            elif c == 7:
                self.reverse = True
            elif c == 22:
                self.bold = self.dim = False
            elif c == 23:
                self.italic = False
            elif c == 24:
                self.underline = False
            elif c == 27:
                self.reverse = False
            elif 30 <= c <= 37:
                self.fg = BASE16[c - 30]
            elif 90 <= c <= 97:
                self.fg = BASE16[c - 90 + 8]
            elif 40 <= c <= 47:
                self.bg = BASE16[c - 40]
            elif 100 <= c <= 107:
                self.bg = BASE16[c - 100 + 8]
            elif c == 39:
                self.fg = None
            elif c == 49:
                self.bg = None
            elif c in (38, 48) and i + 1 < len(codes):
                if codes[i + 1] == 5 and i + 2 < len(codes):
                    color = indexed(codes[i + 2])
                    i += 2
                elif codes[i + 1] == 2 and i + 4 < len(codes):
                    color = "#%02x%02x%02x" % tuple(codes[i + 2 : i + 5])
                    i += 4
                else:
                    color = None
                if c == 38:
                    self.fg = color
                else:
                    self.bg = color
            i += 1


def cells(lines, columns, rows):
    """The screen as rows of (char, style key) cells."""
    grid = []
    style = Style()
    for line in lines[:rows]:
        row = []
        for part in re.split(r"(\x1b\[[0-9;]*m)", line):
            if part.startswith("\x1b["):
                style.apply(part[2:-1])
                continue
            for ch in part:
                if ch == "\x1b" or ord(ch) < 0x20:
                    continue
                w = width(ch)
                if w == 0 and row:
                    row[-1] = (row[-1][0] + ch, row[-1][1])
                    continue
                row.append((ch, style.key()))
                if w == 2:
                    row.append(("", style.key()))
        row = row[:columns]
        row += [(" ", Style().key())] * (columns - len(row))
        grid.append(row)
    while len(grid) < rows:
        grid.append([(" ", Style().key())] * columns)
    return grid


def svg(grid, columns, rows, title):
    w = PAD * 2 + columns * CELL_W
    h = PAD * 2 + rows * CELL_H
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" '
        f'viewBox="0 0 {w:.0f} {h:.0f}" role="img" aria-label="{html.escape(title)}">',
        f"<title>{html.escape(title)}</title>",
        f'<rect width="100%" height="100%" rx="6" fill="{DEFAULT_BG}"/>',
        f'<g font-family="ui-monospace, \'DejaVu Sans Mono\', Menlo, Consolas, monospace" '
        f'font-size="{FONT}" xml:space="preserve">',
    ]
    for y, row in enumerate(grid):
        x = 0
        while x < columns:
            key = row[x][1]
            end = x
            while end < columns and row[end][1] == key:
                end += 1
            fg, bg, bold, dim, italic, underline, reverse = key
            fg, bg = fg or DEFAULT_FG, bg
            if reverse:
                fg, bg = (bg or DEFAULT_BG), fg
            px, py = PAD + x * CELL_W, PAD + y * CELL_H
            if bg:
                out.append(
                    f'<rect x="{px:.1f}" y="{py}" width="{(end - x) * CELL_W:.1f}" '
                    f'height="{CELL_H}" fill="{bg}"/>'
                )
            text = "".join(ch for ch, _ in row[x:end])
            if text.strip():
                attrs = [f'fill="{fg}"']
                if bold:
                    attrs.append('font-weight="bold"')
                if dim:
                    attrs.append('opacity="0.6"')
                if italic:
                    attrs.append('font-style="italic"')
                if underline:
                    attrs.append('text-decoration="underline"')
                out.append(
                    f'<text x="{px:.1f}" y="{py + CELL_H - 5}" {" ".join(attrs)} '
                    f'textLength="{(end - x) * CELL_W:.1f}" lengthAdjust="spacingAndGlyphs">'
                    f"{html.escape(text)}</text>"
                )
            x = end
    out.append("</g></svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: ansi_svg.py COLUMNS ROWS [TITLE] < screen.ansi > screen.svg")
    columns, rows = int(sys.argv[1]), int(sys.argv[2])
    title = sys.argv[3] if len(sys.argv) > 3 else "mcpick"
    lines = sys.stdin.read().split("\n")
    sys.stdout.write(svg(cells(lines, columns, rows), columns, rows, title))


if __name__ == "__main__":
    main()
