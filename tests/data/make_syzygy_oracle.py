#!/usr/bin/env python3
"""Builds tests/data/syzygy_oracle.txt: random legal endgame positions with
the results Debian's `fathom` prints for them, the oracle for our prober.

python-chess is used only to place pieces legally and to turn fathom's move
text into UCI; every result comes from fathom.

Usage: make_syzygy_oracle.py [--tables DIR] [--fathom BIN] [--out FILE]

Each output line is `FEN;WDL;DTZ;DTZRANKS;WDLRANKS`:
  WDL   fathom's root result, with the FEN's halfmove clock counted
        (fathom derives it from the DTZ: win if dtz + clock <= 100, ...);
  DTZ   fathom's |dtz| of the root (plies to the next zeroing move);
  DTZRANKS / WDLRANKS  for a subset, `uci:rank` pairs of fathom's
        tb_probe_root_dtz (50-move rule on, no repetition) and
        tb_probe_root_wdl (50-move rule on); empty otherwise.
"""
import argparse
import os
import random
import re
import subprocess

import chess

SEED = 20240611
FIVE = ["KRPvKR", "KRBvKR", "KRNvKR", "KRRvKR", "KQRvKR"]
# Positions per material class: 3-piece, 4-piece, 5-piece, ep-specials and
# hard ones (long DTZ, or draws with material ahead in 5-piece tables).
COUNTS = {3: 500, 4: 1400, 5: 800, "ep": 150, "hard": 400}
HARD = ["KBNvK", "KRBvKR", "KRPvKR", "KRNvKR", "KPvKP", "KQvKR", "KRvKB", "KBPvK", "KQPvK"]
ROOT_SHARE = 0.2

LETTERS = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK,
           "B": chess.BISHOP, "N": chess.KNIGHT, "P": chess.PAWN}


def tables(folder):
    names = set()
    for f in os.listdir(folder):
        if f.endswith(".rtbw") and os.path.exists(os.path.join(folder, f[:-5] + ".rtbz")):
            names.add(f[:-5])
    return sorted(names)


def random_board(rng, name):
    strong, weak = name.split("v")
    board = chess.Board(None)
    white_strong = rng.random() < 0.5
    for side, text in ((white_strong, strong), (not white_strong, weak)):
        color = chess.WHITE if side else chess.BLACK
        for ch in text:
            kind = LETTERS[ch]
            while True:
                sq = rng.randrange(64)
                if board.piece_at(sq) is not None:
                    continue
                if kind == chess.PAWN and chess.square_rank(sq) in (0, 7):
                    continue
                board.set_piece_at(sq, chess.Piece(kind, color))
                break
    board.turn = rng.random() < 0.5
    board.castling_rights = 0
    board.halfmove_clock = 0 if rng.random() < 0.6 else rng.randrange(1, 91)
    return board


def ep_board(rng):
    """KPvKP where the side to move may capture en passant."""
    while True:
        board = chess.Board(None)
        white_moved = rng.random() < 0.5  # the pawn that just moved two squares
        f = rng.randrange(8)
        g = f + rng.choice([-1, 1])
        if not 0 <= g < 8:
            continue
        if white_moved:
            board.set_piece_at(chess.square(f, 3), chess.Piece(chess.PAWN, chess.WHITE))
            board.set_piece_at(chess.square(g, 3), chess.Piece(chess.PAWN, chess.BLACK))
            ep = chess.square(f, 2)
            board.turn = chess.BLACK
        else:
            board.set_piece_at(chess.square(f, 4), chess.Piece(chess.PAWN, chess.BLACK))
            board.set_piece_at(chess.square(g, 4), chess.Piece(chess.PAWN, chess.WHITE))
            ep = chess.square(f, 5)
            board.turn = chess.WHITE
        for color in (chess.WHITE, chess.BLACK):
            while True:
                sq = rng.randrange(64)
                if board.piece_at(sq) is None and sq != ep and sq != (ep - 8 if white_moved else ep + 8):
                    board.set_piece_at(sq, chess.Piece(chess.KING, color))
                    break
        board.ep_square = ep
        board.castling_rights = 0
        board.halfmove_clock = 0
        return board


def acceptable(board):
    if not board.is_valid():
        return False
    if board.is_checkmate() or board.is_stalemate():
        return False  # fathom's root probe answers these with a special code
    return True


MOVE_RE = re.compile(r"^([KQRBN])?([a-h])?([1-8])?(x)?([a-h][1-8])(?:=([QRBN]))?$")


def to_uci(board, text):
    m = MOVE_RE.match(text)
    if not m:
        raise ValueError(text)
    kind = LETTERS[m.group(1)] if m.group(1) else chess.PAWN
    to = chess.parse_square(m.group(5))
    promo = LETTERS[m.group(6)] if m.group(6) else None
    found = []
    for mv in board.legal_moves:
        if mv.to_square != to or board.piece_type_at(mv.from_square) != kind:
            continue
        if mv.promotion != promo:
            continue
        if m.group(2) and chess.square_file(mv.from_square) != ord(m.group(2)) - 97:
            continue
        if m.group(3) and chess.square_rank(mv.from_square) != int(m.group(3)) - 1:
            continue
        found.append(mv)
    if len(found) != 1:
        raise ValueError(f"{text}: {found} in {board.fen()}")
    return found[0].uci()


def probe(fathom, folder, board, want_ranks):
    fen = board.fen(en_passant="fen")
    out = subprocess.run([fathom, f"--path={folder}", fen], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    wdl = dtz = None
    dtz_ranks, wdl_ranks, current = [], [], None
    for line in out.stdout.splitlines():
        if line.startswith('[WDL "'):
            wdl = line.split('"')[1]
        elif line.startswith('[DTZ "'):
            dtz = int(line.split('"')[1])
        elif "moves returned from DTZ probe" in line:
            current = dtz_ranks
        elif "moves returned from WDL probe" in line:
            current = wdl_ranks
        elif current is not None and " rank = " in line:
            text, rest = line.split(" rank = ")
            current.append(f"{to_uci(board, text)}:{int(rest.split()[0])}")
    if wdl is None or dtz is None:
        return None
    if len(dtz_ranks) != board.legal_moves.count() or len(wdl_ranks) != len(dtz_ranks):
        return None
    if not want_ranks:
        dtz_ranks, wdl_ranks = [], []
    return f"{fen};{wdl};{dtz};{' '.join(dtz_ranks)};{' '.join(wdl_ranks)}"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", default=os.path.join(here, "..", "..", "..", "shared", "syzygy"))
    ap.add_argument("--fathom", default="/usr/games/fathom")
    ap.add_argument("--out", default=os.path.join(here, "syzygy_oracle.txt"))
    args = ap.parse_args()
    rng = random.Random(SEED)
    names = tables(args.tables)
    by_size = {n: [t for t in names if len(t) - 1 == n] for n in (3, 4, 5)}
    lines, failed = [], 0
    for size, count in COUNTS.items():
        made = 0
        while made < count:
            if size == "ep":
                board = ep_board(rng)
            elif size == "hard":
                board = random_board(rng, rng.choice(HARD))
            else:
                pool = by_size[size]
                # KRPvKR is the 5-piece table with the most pitfalls: give it a third.
                name = "KRPvKR" if size == 5 and rng.random() < 0.33 else rng.choice(pool)
                board = random_board(rng, name)
            if not acceptable(board):
                continue
            line = probe(args.fathom, args.tables, board, rng.random() < ROOT_SHARE or size == "ep")
            if line is None:
                failed += 1
                continue
            if size == "hard":
                _, wdl, dtz = line.split(";")[:3]
                five = len(board.piece_map()) == 5
                if not (int(dtz) >= 30 or (wdl == "Draw" and five and rng.random() < 0.3)):
                    continue
            lines.append(line)
            made += 1
    with open(args.out, "w") as f:
        f.write("# FEN;WDL;DTZ;DTZRANKS;WDLRANKS from fathom, see make_syzygy_oracle.py\n")
        for line in lines:
            f.write(line + "\n")
    print(f"{len(lines)} positions written, {failed} fathom failures skipped")


if __name__ == "__main__":
    main()
