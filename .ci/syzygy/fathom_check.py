"""Re-judges a sample of run.out's moves with Debian's fathom (WDL after the
move, 50-move aware through the FEN's clock)."""
import random, subprocess, sys, chess, re
import os
TABLES = os.environ.get("GUOXIANG_SYZYGY", os.path.join(os.path.dirname(__file__), "../../../shared/syzygy"))
rows = [l.strip().split(";") for l in open(sys.argv[1] if len(sys.argv) > 1 else "run.out")]
random.Random(7).shuffle(rows)
order = {"Loss": -2, "BlessedLoss": -1, "Draw": 0, "CursedWin": 1, "Win": 2}
def fathom(fen):
    out = subprocess.run(["/usr/games/fathom", "--path=" + TABLES, fen], capture_output=True, text=True).stdout
    m = re.search(r'\[WDL "(\w+)"\]', out)
    return order[m.group(1)] if m else None
bad = checked = 0
for r in rows[:300]:
    fen, best = r[0], r[3]
    before = fathom(fen)
    b = chess.Board(fen); b.push(chess.Move.from_uci(best))
    if b.is_checkmate(): after = 2
    else:
        a = fathom(b.fen())
        if a is None or before is None: continue
        after = -a
    cls = lambda v: (v > 1) - (v < -1)   # cursed/blessed count as draws
    checked += 1
    if cls(after) < cls(before):
        bad += 1; print("SPOILED", fen, best, before, after)
print("checked", checked, "spoiled", bad)
