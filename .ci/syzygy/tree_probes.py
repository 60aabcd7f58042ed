#!/usr/bin/env python3
"""What probing inside the tree costs at a root already in the tables:
each engine searches the same tablebase roots (`go movetime MS`) and the
script prints, per engine (run position by position in turn), the median nodes per second, the median depth
reached and the median tbhits. Compare a build that probes in the tree
with one that does not.

Usage: tree_probes.py POSITIONS ENGINE... [--tables DIR] [--ms 1000] [--count 40]
POSITIONS: a file with a FEN first on each line (';' separated, as the
oracle files), '#' lines skipped.
"""
import argparse
import os
import statistics
import subprocess


class Engine:
    def __init__(self, path, tables):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.send("uci")
        self.until(lambda l: l == "uciok")
        self.send(f"setoption name SyzygyPath value {tables}")
        self.send("isready")
        self.until(lambda l: l == "readyok")

    def send(self, c):
        self.p.stdin.write(c + "\n")
        self.p.stdin.flush()

    def until(self, pred):
        lines = []
        while True:
            line = self.p.stdout.readline().strip()
            lines.append(line)
            if pred(line):
                return lines

    def search(self, fen, ms):
        self.send("ucinewgame")
        self.send(f"position fen {fen}")
        self.send(f"go movetime {ms}")
        lines = self.until(lambda l: l.startswith("bestmove"))
        last = [l for l in lines if l.startswith("info depth")][-1].split()
        get = lambda k: int(last[last.index(k) + 1]) if k in last else 0
        return get("nps"), get("depth"), get("tbhits")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("positions")
    ap.add_argument("engines", nargs="+")
    ap.add_argument("--tables", default=os.path.join(here, "..", "..", "..", "shared", "syzygy"))
    ap.add_argument("--ms", type=int, default=1000)
    ap.add_argument("--count", type=int, default=40)
    args = ap.parse_args()
    fens = [l.split(";")[0] for l in open(args.positions) if l.strip() and not l.startswith("#")]
    fens = fens[:: max(1, len(fens) // args.count)][: args.count]
    tables = os.path.abspath(args.tables)
    engines = [Engine(e, tables) for e in args.engines]
    rows = {e: [] for e in args.engines}
    # Position by position, the engines in turn: a changing load treats them alike.
    for fen in fens:
        for name, engine in zip(args.engines, engines):
            rows[name].append(engine.search(fen, args.ms))
    for name in args.engines:
        med = lambda i: statistics.median(r[i] for r in rows[name])
        print(f"{name}: {len(rows[name])} roots, median nps {med(0):.0f}, depth {med(1)}, tbhits {med(2)}")


if __name__ == "__main__":
    main()
