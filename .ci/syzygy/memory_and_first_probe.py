#!/usr/bin/env python3
"""Two measurements of how the engine holds its Syzygy tables.

memory: one engine probes every table in the folder (a root position of
each material, `go depth 1`, which ranks every root move with the WDL and
DTZ tables); prints the process's RssAnon and RssFile (/proc/PID/status)
with no tables and after, and with `--two` starts a second engine on the
same tables and prints both engines' shared file pages (Shared_Clean of
the tables' maps in /proc/PID/smaps).

first: for the smallest and the largest table (by WDL+DTZ size), RUNS
fresh processes each: `setoption name SyzygyPath`, `isready`, a root
position of that material, then the time from `go depth 1` to the first
`info` line that has `tbhits`; prints the median.

Usage: memory_and_first_probe.py ENGINE [--tables DIR] [--runs 20] [--two]
"""
import argparse
import os
import random
import statistics
import subprocess
import time

import chess

LETTERS = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK,
           "B": chess.BISHOP, "N": chess.KNIGHT, "P": chess.PAWN}


def position_of(name, rng):
    """A legal position of the table's material, White to move, no capture
    and not in check, so that the root itself is read from this table."""
    strong, weak = name.split("v")
    while True:
        board = chess.Board(None)
        for color, text in ((chess.WHITE, strong), (chess.BLACK, weak)):
            for ch in text:
                while True:
                    sq = rng.randrange(64)
                    if board.piece_at(sq) or (ch == "P" and chess.square_rank(sq) in (0, 7)):
                        continue
                    board.set_piece_at(sq, chess.Piece(LETTERS[ch], color))
                    break
        board.turn = chess.WHITE
        if board.is_valid() and not board.is_check() and not board.is_checkmate() and not board.is_stalemate() \
                and not any(board.is_capture(m) for m in board.legal_moves):
            return board.fen()


class Engine:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.send("uci")
        self.wait(lambda l: l == "uciok")

    def send(self, cmd):
        self.p.stdin.write(cmd + "\n")
        self.p.stdin.flush()

    def wait(self, pred):
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("engine exited")
            line = line.strip()
            if pred(line):
                return line

    def sync(self):
        self.send("isready")
        self.wait(lambda l: l == "readyok")

    def status(self, key):
        for line in open(f"/proc/{self.p.pid}/status"):
            if line.startswith(key + ":"):
                return int(line.split()[1])
        return None

    def shared_table_kb(self):
        total, inside = 0, False
        for line in open(f"/proc/{self.p.pid}/smaps"):
            first = line.split()[0]
            if "-" in first and not first.endswith(":"):
                inside = line.rstrip().endswith((".rtbw", ".rtbz"))
            elif inside and first == "Shared_Clean:":
                total += int(line.split()[1])
        return total

    def quit(self):
        self.send("quit")
        self.p.wait()


def tables(folder):
    names = sorted(f[:-5] for f in os.listdir(folder) if f.endswith(".rtbw"))
    size = lambda n: sum(os.path.getsize(os.path.join(folder, n + e))
                         for e in (".rtbw", ".rtbz") if os.path.exists(os.path.join(folder, n + e)))
    return names, size


def probe_all(e, names, rng):
    for name in names:
        e.send(f"position fen {position_of(name, rng)}")
        e.send("go depth 1")
        e.wait(lambda l: l.startswith("bestmove"))
    e.sync()


def memory(args):
    names, size = tables(args.tables)
    rng = random.Random(1)
    e = Engine(args.engine)
    e.send("position startpos")
    e.send("go depth 6")
    e.wait(lambda l: l.startswith("bestmove"))
    e.sync()
    before = (e.status("RssAnon"), e.status("RssFile"))
    e.send(f"setoption name SyzygyPath value {args.tables}")
    e.sync()
    probe_all(e, names, rng)
    after = (e.status("RssAnon"), e.status("RssFile"))
    total = sum(size(n) for n in names) // 1024
    print(f"memory: {len(names)} tables ({total} kB), RssAnon {before[0]} -> {after[0]} kB "
          f"(+{after[0] - before[0]} kB), RssFile {before[1]} -> {after[1]} kB")
    if args.two:
        f = Engine(args.engine)
        f.send(f"setoption name SyzygyPath value {args.tables}")
        f.sync()
        probe_all(f, names, random.Random(1))
        print(f"two engines: RssAnon {e.status('RssAnon')} and {f.status('RssAnon')} kB; "
              f"tables' pages shared (Shared_Clean of the maps): {e.shared_table_kb()} and "
              f"{f.shared_table_kb()} kB")
        f.quit()
    e.quit()


def first_probe(args):
    names, size = tables(args.tables)
    ordered = sorted(names, key=size)
    rng = random.Random(2)
    for name in (ordered[0], ordered[-1]):
        times = []
        for _ in range(args.runs):
            fen = position_of(name, rng)
            e = Engine(args.engine)
            e.send(f"setoption name SyzygyPath value {args.tables}")
            e.sync()
            e.send(f"position fen {fen}")
            e.sync()
            t = time.perf_counter()
            e.send("go depth 1")
            e.wait(lambda l: l.startswith("info") and " tbhits " in l)
            times.append((time.perf_counter() - t) * 1000)
            e.wait(lambda l: l.startswith("bestmove"))
            e.quit()
        print(f"first probe {name} ({size(name) // 1024} kB): median {statistics.median(times):.1f} ms "
              f"of {args.runs} (min {min(times):.1f}, max {max(times):.1f})")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("engine")
    ap.add_argument("--tables", default=os.path.join(here, "..", "..", "..", "shared", "syzygy"))
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--two", action="store_true")
    ap.add_argument("--only", choices=["memory", "first"])
    args = ap.parse_args()
    args.tables = os.path.abspath(args.tables)
    if args.only != "first":
        memory(args)
    if args.only != "memory":
        first_probe(args)


if __name__ == "__main__":
    main()
