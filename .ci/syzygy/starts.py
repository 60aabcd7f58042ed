"""Won starts, DTZ >= 20, the side to move winning: 10 each of four 4-piece
endings and of KRPvKR, plus the Lucena position. python-chess's prober picks them."""
import random, chess, chess.syzygy
import os
TABLES = os.environ.get("GUOXIANG_SYZYGY", os.path.join(os.path.dirname(__file__), "../../../shared/syzygy"))
rng = random.Random(4401)
tb = chess.syzygy.open_tablebase(TABLES)
def place(material):
    white, black = material.split("v")
    while True:
        b = chess.Board(None)
        sqs = rng.sample(range(64), len(white) + len(black))
        ok = True
        for sq, (ch, col) in zip(sqs, [(c, True) for c in white] + [(c, False) for c in black]):
            if ch == 'P' and chess.square_rank(sq) in (0, 7): ok = False
            b.set_piece_at(sq, chess.Piece(chess.PIECE_SYMBOLS.index(ch.lower()), col))
        b.turn = rng.random() < 0.5
        if ok and b.is_valid() and not b.is_game_over():
            # the stronger side (white here) must be the side to move
            if b.turn == chess.WHITE:
                return b
for m in ["KBNvK", "KQvKR", "KBBvK", "KRvKN", "KRPvKR"]:
    got = 0
    while got < 10:
        b = place(m)
        if tb.probe_wdl(b) == 2 and tb.probe_dtz(b) >= 20:
            print(f"{m};{b.fen()};{tb.probe_dtz(b)}")
            got += 1
print("Lucena;1K6/1P1k4/8/8/8/8/r7/2R5 w - - 0 1;15")
