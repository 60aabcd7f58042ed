#!/usr/bin/env python3
"""Builds tests/data/syzygy6_oracle.txt: KRRvKRR positions (a 6-piece
table) with the results Debian's `fathom` prints, in the same line format
as syzygy_oracle.txt (see make_syzygy_oracle.py, whose helpers it uses).

2,000 random placements (either side to move, 40% with a halfmove clock of
1..90), then 400 more kept only when they are decided with a DTZ of 4 or
more, so that the DTZ table itself is read (random placements are half
draws, and nearly every decided one zeroes at once: 1 in 300 has a DTZ of
6 or more). python-chess's own prober picks those candidates; their
results, as all others, come from fathom. A fifth carry fathom's per-move
root ranks.

Usage: make_syzygy6_oracle.py [--tables DIR] [--fathom BIN] [--out FILE]
"""
import argparse
import os
import random

import chess.syzygy

from make_syzygy_oracle import acceptable, probe, random_board

SEED = 20261207
TABLE = "KRRvKRR"
RANDOM, DECIDED = 2000, 400
ROOT_SHARE = 0.2


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", default=os.path.join(here, "..", "..", "..", "shared", "syzygy"))
    ap.add_argument("--fathom", default="/usr/games/fathom")
    ap.add_argument("--out", default=os.path.join(here, "syzygy6_oracle.txt"))
    args = ap.parse_args()
    rng = random.Random(SEED)
    picker = chess.syzygy.open_tablebase(args.tables)
    lines, failed = [], 0
    for decided, count in ((False, RANDOM), (True, DECIDED)):
        made = 0
        while made < count:
            board = random_board(rng, TABLE)
            if not acceptable(board):
                continue
            if decided and (picker.probe_wdl(board) == 0 or abs(picker.probe_dtz(board)) < 4):
                continue
            line = probe(args.fathom, args.tables, board, rng.random() < ROOT_SHARE)
            if line is None:
                failed += 1
                continue
            if decided:
                _, wdl, dtz = line.split(";")[:3]
                if wdl == "Draw" or int(dtz) < 4:
                    continue
            lines.append(line)
            made += 1
    with open(args.out, "w") as f:
        f.write("# FEN;WDL;DTZ;DTZRANKS;WDLRANKS from fathom, see make_syzygy6_oracle.py\n")
        for line in lines:
            f.write(line + "\n")
    print(f"{len(lines)} positions written, {failed} fathom failures skipped")


if __name__ == "__main__":
    main()
