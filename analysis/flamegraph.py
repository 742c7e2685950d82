#!/usr/bin/python3
"""Flame graph SVG and top-symbol table from `perf script` output.

usage: flamegraph.py PERF_SCRIPT.txt -o OUT.svg [--top TOP.md] [--title T]

Folds each sample's call chain (root first) into a count per stack and
draws the stacks as nested rectangles, width proportional to samples.  In
the study's cost mode perf's cpu-clock is the guest's virtual clock, which
advances one nanosecond per instruction: widths are then proportional to
instructions executed, not to time on hardware.  --top writes the symbols
with the most samples at the leaf (self) and anywhere on the stack
(total), kernel symbols marked.
"""
import argparse
import collections
import html
import pathlib


def fold(lines):
    """{(root, ..., leaf): samples} from perf script text."""
    stacks = collections.Counter()
    frames = []
    in_sample = False
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            if frames:
                stacks[tuple(reversed(frames))] += 1
            frames, in_sample = [], False
            continue
        if not line[0].isspace():
            in_sample = True
            frames = []
            continue
        if in_sample:
            parts = line.split()
            sym = parts[1] if len(parts) > 1 else parts[0]
            sym = sym.split("+0x")[0]
            frames.append(sym)
    if frames:
        stacks[tuple(reversed(frames))] += 1
    return stacks


def top_table(stacks, n=20):
    self_c, total_c = collections.Counter(), collections.Counter()
    all_samples = sum(stacks.values()) or 1
    for st, c in stacks.items():
        self_c[st[-1]] += c
        for s in set(st):
            total_c[s] += c
    rows = ["| symbol | self % | total % |", "|---|---:|---:|"]
    for sym, c in self_c.most_common(n):
        rows.append(f"| `{sym}` | {c / all_samples * 100:.1f} | "
                    f"{total_c[sym] / all_samples * 100:.1f} |")
    return "\n".join(rows) + f"\n\n{all_samples} samples.\n"


def svg(stacks, title, width=1200, row=16):
    tree = {}
    for st, c in stacks.items():
        node = tree
        for f in st:
            node = node.setdefault(f, [0, {}])
            node[0] += c
            node = node[1]
    total = sum(stacks.values()) or 1
    depth = max((len(s) for s in stacks), default=1)
    height = (depth + 3) * row
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="monospace" font-size="11">',
           f'<text x="{width / 2}" y="{row}" text-anchor="middle" font-size="13">'
           f'{html.escape(title)}</text>']

    def draw(node, x, level):
        for name, (count, kids) in sorted(node.items()):
            w = count / total * width
            y = height - (level + 1) * row
            hue = 20 + (hash(name) % 40)
            out.append(f'<g><title>{html.escape(name)} ({count} samples, '
                       f'{count / total * 100:.1f}%)</title>'
                       f'<rect x="{x:.2f}" y="{y}" width="{max(w - 0.5, 0.1):.2f}" '
                       f'height="{row - 1}" fill="hsl({hue},90%,60%)"/>')
            if w > 40:
                label = name[: int(w / 7)]
                out.append(f'<text x="{x + 3:.2f}" y="{y + row - 4}">{html.escape(label)}</text>')
            out.append("</g>")
            draw(kids, x, level + 1)
            x += w

    draw(tree, 0.0, 0)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("script")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--top")
    ap.add_argument("--title", default="perf record -e cpu-clock -g")
    a = ap.parse_args()
    with open(a.script, errors="replace") as f:
        stacks = fold(f)
    pathlib.Path(a.output).write_text(svg(stacks, a.title))
    if a.top:
        pathlib.Path(a.top).write_text(top_table(stacks))
    print(f"flamegraph: {sum(stacks.values())} samples -> {a.output}")


if __name__ == "__main__":
    main()
