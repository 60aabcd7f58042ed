#!/usr/bin/env python3
"""A UCI pass-through that scales `go nodes N` by FACTOR, for node-odds
matches with one `--nodes` limit for both engines (match.py has one):

    printf '#!/bin/sh\nexec python3 .ci/node_odds.py 0.125 /usr/games/stockfish\n' > /tmp/sf8
    chmod +x /tmp/sf8   # Stockfish at an eighth of the nodes

Usage: node_odds.py FACTOR ENGINE [ARGS...]
"""
import subprocess
import sys

factor = float(sys.argv[1])
engine = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, text=True, bufsize=1)
for line in sys.stdin:
    t = line.split()
    if t and t[0] == "go" and "nodes" in t[:-1]:
        i = t.index("nodes") + 1
        if t[i].isdigit():
            t[i] = str(max(1, int(int(t[i]) * factor)))
            line = " ".join(t) + "\n"
    engine.stdin.write(line)
    engine.stdin.flush()
    if t and t[0] == "quit":
        break
engine.stdin.close()
engine.wait()
