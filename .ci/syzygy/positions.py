"""Random hard 4- and 5-piece positions, judged by python-chess's Syzygy prober.
Hard: draws with material ahead, wins (and losses) far from a zeroing move,
cursed wins and blessed losses. Output: FEN;wdl;dtz per line."""
import random, sys, chess, chess.syzygy
import os
TABLES = os.environ.get("GUOXIANG_SYZYGY", os.path.join(os.path.dirname(__file__), "../../../shared/syzygy"))
rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 44)
TB = chess.syzygy.open_tablebase(TABLES)
VALUE = {'P': 1, 'N': 3, 'B': 3, 'R': 5, 'Q': 9}
FOUR = ["KBNvK", "KBBvK", "KQvKR", "KRvKB", "KRvKN", "KQvKB", "KQvKN", "KNNvK", "KBPvK", "KPvKP",
        "KQvKQ", "KRvKR", "KRvKP", "KQvKP", "KBvKP", "KNvKP", "KPPvK", "KNPvK", "KRPvK", "KQPvK"]
FIVE = ["KRPvKR", "KRBvKR", "KRNvKR", "KRRvKR", "KQRvKR"]

def random_position(material):
    white, black = material.split("v")
    while True:
        board = chess.Board(None)
        squares = rng.sample(range(64), len(white) + len(black))
        ok = True
        for sq, (ch, color) in zip(squares, [(c, chess.WHITE) for c in white] + [(c, chess.BLACK) for c in black]):
            if ch == 'P' and chess.square_rank(sq) in (0, 7):
                ok = False
                break
            board.set_piece_at(sq, chess.Piece(chess.PIECE_SYMBOLS.index(ch.lower()), color))
        if not ok:
            continue
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        if not board.is_valid() or board.is_game_over():
            continue
        return board

def ahead(board):
    us = sum(VALUE.get(p.symbol().upper(), 0) for p in board.piece_map().values() if p.color == board.turn)
    them = sum(VALUE.get(p.symbol().upper(), 0) for p in board.piece_map().values() if p.color != board.turn)
    return us - them

def wanted(board, wdl, dtz):
    if wdl in (1, -1):
        return True
    if wdl == 0:
        return ahead(board) >= 1
    return abs(dtz) >= 20

out = []
for materials, quota, cap in ((FOUR, 36, 6000), (FIVE, 60, 6000)):
    for m in materials:
        got = {"draw": 0, "long": 0, "cursed": 0}
        tries = 0
        while min(got["draw"], got["long"]) < quota and tries < cap:
            tries += 1
            b = random_position(m if rng.random() < 0.5 else "v".join(reversed(m.split("v"))))
            try:
                wdl = TB.probe_wdl(b)
                dtz = TB.probe_dtz(b)
            except KeyError:
                continue
            kind = "cursed" if wdl in (1, -1) else "draw" if wdl == 0 else "long"
            if not wanted(b, wdl, dtz) or (kind != "cursed" and got[kind] >= quota):
                continue
            got[kind] += 1
            out.append(f"{b.fen()};{wdl};{dtz}")
        print(m, got, tries, file=sys.stderr)
rng.shuffle(out)
print("\n".join(out))
# Variants of long wins and losses with a halfmove clock: some too late to
# win inside the 50-move rule (expected: cursed/blessed), some just in time.
extra = []
for line in out:
    fen, wdl, dtz = line.split(";")
    wdl, dtz = int(wdl), int(dtz)
    if abs(wdl) != 2:
        continue
    parts = fen.split(" ")
    r = rng.random()
    if r < 0.3 and 100 - abs(dtz) + 3 <= 99:
        parts[4] = str(100 - abs(dtz) + 3)
        extra.append(f"{' '.join(parts)};{wdl // 2};{dtz}")
    elif r < 0.5 and 100 - abs(dtz) - 4 >= 1:
        parts[4] = str(100 - abs(dtz) - 4)
        extra.append(f"{' '.join(parts)};{wdl};{dtz}")
print("\n".join(extra))
print(len(extra), "clock variants", file=sys.stderr)
