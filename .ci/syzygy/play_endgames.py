"""Plays each start: Guoxiang with the tables on the winning side, Stockfish
15.1 without tables on the other, 10+0.1 clocks kept here. A start passes when
Guoxiang mates inside the 50-move rule. Usage: play_endgames.py ENGINE starts.txt out"""
import sys, time, chess, chess.engine
import os
TABLES = os.environ.get("GUOXIANG_SYZYGY", os.path.join(os.path.dirname(__file__), "../../../shared/syzygy"))
engine_path, starts, out = sys.argv[1], sys.argv[2], sys.argv[3]
BASE, INC = 10.0, 0.1
def play(fen):
    gx = chess.engine.SimpleEngine.popen_uci(engine_path)
    gx.configure({"SyzygyPath": TABLES, "Hash": 16, "Threads": 1})
    sf = chess.engine.SimpleEngine.popen_uci("/usr/games/stockfish")
    sf.configure({"Hash": 16, "Threads": 1})
    board = chess.Board(fen)
    gx_color = board.turn
    clock = {True: BASE, False: BASE}
    tbhits_seen = False
    result = None
    try:
        while True:
            if board.is_checkmate():
                result = "win" if board.turn != gx_color else "loss"; break
            if board.is_stalemate() or board.is_insufficient_material():
                result = "draw"; break
            if board.halfmove_clock >= 100:
                result = "draw (50 moves)"; break
            if board.is_repetition(3):
                result = "draw (repetition)"; break
            side = board.turn
            eng = gx if side == gx_color else sf
            limit = chess.engine.Limit(white_clock=clock[True], black_clock=clock[False],
                                       white_inc=INC, black_inc=INC)
            t0 = time.monotonic()
            r = eng.play(board, limit, info=chess.engine.INFO_ALL)
            used = time.monotonic() - t0
            clock[side] -= used
            if clock[side] < -0.1:
                result = "loss on time" if side == gx_color else "win on time"; break
            clock[side] += INC
            if side == gx_color and r.info.get("tbhits"):
                tbhits_seen = True
            board.push(r.move)
    finally:
        gx.quit(); sf.quit()
    return result, board.ply(), tbhits_seen
with open(starts) as f, open(out, "w") as o:
    for line in f:
        name, fen, dtz = line.strip().split(";")
        result, plies, tb = play(fen)
        row = f"{name};{fen};{dtz};{result};{plies};tbhits={tb}"
        print(row, flush=True); o.write(row + "\n"); o.flush()
