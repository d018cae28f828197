#!/usr/bin/env python3
"""Checks the SVG heatmap of worksheet 004 (H = 3) written by the attention_heatmap example.

Usage: check_svg.py <attention_heatmap program> <output.svg>

Runs the program, parses the SVG with xml.etree (so it must be well formed), and compares
every cell with worksheet 004's attention weights recomputed here in float64 with plain Python
(no cxmat, no numpy): its data-value within 1e-12, its colour within one unit per channel of
the documented viridis scale (matplotlib's colours at t = 0, 1/8, ..., 1, interpolated
linearly, rounded half up) of the recomputed value. Also checks the panels (3 heads and their
mean), the token labels on both axes and the colour scale. Exits 1 on the first mismatch.
"""
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"

# Worksheet 004's inputs (the worksheet's own numbers).
X = [[0.7, -0.8, -1.2, -1., -0., -0.3],
     [2.7, 0.1, 1.6, 1.8, 1.5, 0.3],
     [0.1, 2.6, -0.1, -1.3, -0.5, -0.7],
     [1.1, 1.5, 1., -0.5, 0.4, 0.4],
     [-0.7, -0.7, 0.7, -1.5, -0.8, 1.]]
WQ = [[-1.7, 1.6, 0.9, -0.5, 0.4, -1.],
      [-0.4, 1., -0.3, 1., 0.5, 1.1],
      [0.4, -0.9, -1., 0.5, -1.4, 0.],
      [0.3, 1.4, -1.2, 0.2, 0.1, 1.6],
      [-0.8, 0.8, -0.7, -1.3, 0.3, 0.8],
      [1.1, 0.3, -1.5, -2.3, 2.2, -0.7]]
WK = [[0.3, -0.4, -1.3, 0.3, -1.7, 1.1],
      [-2.3, -1.1, 0.6, -1.2, 2.2, 0.3],
      [1.1, -0.4, -0.5, 1.9, -1.1, -1.2],
      [-0.4, 1., -1.7, 0., -3.3, -1.4],
      [-0.9, -1.1, -1., 1.4, 1.3, 1.2],
      [-0.7, 0.4, 0.4, -1.4, -0.2, -0.5]]
H = 3
TOKENS = ["x0", "x1", "x2", "x3", "x4"]
VIRIDIS = ["#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#fde725"]


def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def weights():
    """softmax(Q_h K_h^T / sqrt(d_k)) for each head h, d_k = 6 / H."""
    q, k = matmul(X, WQ), matmul(X, WK)
    dk = len(WQ[0]) // H
    out = []
    for h in range(H):
        cols = range(h * dk, (h + 1) * dk)
        head = []
        for i in range(len(X)):
            s = [sum(q[i][c] * k[j][c] for c in cols) / math.sqrt(dk) for j in range(len(X))]
            m = max(s)
            e = [math.exp(v - m) for v in s]
            total = sum(e)
            head.append([v / total for v in e])
        out.append(head)
    return out


def rgb(hex_color):
    return tuple(int(hex_color[i:i + 2], 16) for i in (1, 3, 5))


def viridis(t):
    t = min(max(t, 0.0), 1.0)
    k = min(int(t * 8), 7)
    f = t * 8 - k
    a, b = rgb(VIRIDIS[k]), rgb(VIRIDIS[k + 1])
    return tuple(math.floor(x + (y - x) * f + 0.5) for x, y in zip(a, b))


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def main():
    program, svg_path = sys.argv[1], sys.argv[2]
    subprocess.run([program, svg_path], check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, TERM="dumb"))
    root = ET.parse(svg_path).getroot()  # raises on malformed XML
    if root.tag != NS + "svg":
        fail(f"root element is {root.tag}, not svg")

    w = weights()
    mean = [[sum(w[h][i][j] for h in range(H)) / H for j in range(5)] for i in range(5)]
    expected = {f"H={h}": w[h] for h in range(H)}
    expected["mean"] = mean

    panels = root.findall(NS + "g[@class='panel']")
    names = [p.get("data-panel") for p in panels]
    if names != ["H=0", "H=1", "H=2", "mean"]:
        fail(f"panels are {names}")
    checked = 0
    for panel in panels:
        ref = expected[panel.get("data-panel")]
        cells = panel.findall(NS + "rect[@class='cell']")
        if len(cells) != 25:
            fail(f"panel {panel.get('data-panel')} has {len(cells)} cells")
        for cell in cells:
            i, j = int(cell.get("data-row")), int(cell.get("data-col"))
            value, want = float(cell.get("data-value")), ref[i][j]
            if abs(value - want) > 1e-12:
                fail(f"{panel.get('data-panel')} ({i}, {j}): value {value}, float64 reference {want}")
            got, want_rgb = rgb(cell.get("fill")), viridis(want)
            if any(abs(g - e) > 1 for g, e in zip(got, want_rgb)):
                fail(f"{panel.get('data-panel')} ({i}, {j}): colour {cell.get('fill')}, expected {want_rgb}")
            if cell.find(NS + "title") is None:
                fail("a cell has no tooltip")
            checked += 1
        rows = [t.text for t in panel.findall(NS + "text[@class='row-label']")]
        cols = [t.text for t in panel.findall(NS + "text[@class='col-label']")]
        if rows != TOKENS or cols != TOKENS:
            fail(f"labels {rows} / {cols}")
    stops = root.findall(f"{NS}defs/{NS}linearGradient/{NS}stop")
    if [s.get("stop-color") for s in stops] != VIRIDIS:
        fail("the colour scale's stops are not the viridis anchors")
    ticks = [float(t.get("data-value")) for t in root.findall(f"{NS}g[@class='legend']/{NS}text[@class='tick']")]
    if ticks != [0.0, 0.25, 0.5, 0.75, 1.0]:
        fail(f"scale ticks {ticks}")
    print(f"OK: {checked} cells in {len(panels)} panels match the float64 weights and the viridis scale")


main()
