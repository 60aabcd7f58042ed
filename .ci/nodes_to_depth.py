#!/usr/bin/env python3
"""How selective a search is: the nodes each engine needs to finish each
depth, from `go depth D` on positions drawn (seeded) from an EPD book, one
fresh process per position, Hash 16 and Threads 1. Prints, per engine, the
geometric mean of the `info depth` lines' node counts at each depth (lines
with a bound are skipped) and the effective branching factor over the last
six depths.

Usage: nodes_to_depth.py ENGINE... [--depth 16] [--positions 12] [--seed 3]
       [--book ../shared/books/8moves_v3.epd]
"""
import argparse
import math
import random
import statistics
import subprocess


def nodes_by_depth(engine, fen, depth):
    p = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, bufsize=1)

    def send(cmd):
        p.stdin.write(cmd + "\n")
        p.stdin.flush()

    send("uci")
    for option in ("setoption name Hash value 16", "setoption name Threads value 1"):
        send(option)
    send("isready")
    while not p.stdout.readline().startswith("readyok"):
        pass
    send(f"position fen {fen}")
    send(f"go depth {depth}")
    nodes = {}
    while True:
        line = p.stdout.readline()
        if not line:
            raise RuntimeError(f"{engine} exited")
        if line.startswith("bestmove"):
            break
        t = line.split()
        if t[:2] == ["info", "depth"] and "nodes" in t and not {"upperbound", "lowerbound"} & set(t):
            nodes[int(t[2])] = int(t[t.index("nodes") + 1])
    send("quit")
    p.wait()
    return nodes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("engines", nargs="+")
    ap.add_argument("--depth", type=int, default=16)
    ap.add_argument("--positions", type=int, default=12)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--book", default="../shared/books/8moves_v3.epd")
    args = ap.parse_args()
    lines = [l for l in open(args.book).read().splitlines() if l.strip()]
    random.seed(args.seed)
    fens = [" ".join(l.split()[:4]) + " 0 1" for l in random.sample(lines, args.positions)]
    for engine in args.engines:
        per_depth = {}
        for fen in fens:
            for d, n in nodes_by_depth(engine, fen, args.depth).items():
                per_depth.setdefault(d, []).append(n)
        means = {d: math.exp(statistics.mean(math.log(max(v, 1)) for v in vs))
                 for d, vs in per_depth.items() if len(vs) == len(fens)}
        row = " ".join(f"d{d}:{means[d]:.0f}" for d in sorted(means))
        top = max(means, default=0)
        ebf = (means[top] / means[top - 6]) ** (1 / 6) if top - 6 in means else float("nan")
        print(f"{engine}: {row}; branching factor d{top - 6}-d{top}: {ebf:.2f}", flush=True)


if __name__ == "__main__":
    main()
