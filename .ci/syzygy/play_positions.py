"""Bar: every position at go movetime 200 with the tables. Judge: python-chess's
Syzygy prober (independent of ours), 50-move aware via the halfmove clock.
Usage: play_positions.py ENGINE positions.txt out"""
import sys, subprocess, chess, chess.syzygy
import os
TABLES = os.environ.get("GUOXIANG_SYZYGY", os.path.join(os.path.dirname(__file__), "../../../shared/syzygy"))
engine, positions, out = sys.argv[1:4]
tb = chess.syzygy.open_tablebase(TABLES)
p = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def send(s): p.stdin.write(s + "\n"); p.stdin.flush()
def until(prefix):
    lines = []
    while True:
        l = p.stdout.readline()
        if not l: raise SystemExit("engine died")
        lines.append(l.strip())
        if l.startswith(prefix): return lines
send("uci"); until("uciok")
send("setoption name SyzygyPath value " + TABLES); send("isready"); until("readyok")
def klass(wdl, dtz, clock):
    """-1 loss, 0 draw (incl. cursed/blessed), 1 win, with the 50-move rule."""
    if wdl == 0 or abs(wdl) == 1: return 0
    if clock + abs(dtz) > 100: return 0
    return 1 if wdl > 0 else -1
counts = dict(n=0, spoiled=0, draw_n=0, draw_bad_score=0, no_tbhits=0, edge=0, five=0)
with open(positions) as f, open(out, "w") as o:
    for line in f:
        fen, wdl, dtz = line.strip().split(";")
        wdl, dtz = int(wdl), int(dtz)
        b = chess.Board(fen)
        before = klass(wdl, dtz, b.halfmove_clock) if abs(wdl) != 1 else 0
        send("ucinewgame"); send("position fen " + fen); send("go movetime 200")
        lines = until("bestmove")
        best = lines[-1].split()[1]
        info = [l for l in lines if l.startswith("info") and " score " in l][-1]
        toks = info.split()
        kind, val = toks[toks.index("score") + 1], int(toks[toks.index("score") + 2])
        tbhits = int(toks[toks.index("tbhits") + 1]) if "tbhits" in toks else 0
        mv = chess.Move.from_uci(best)
        legal = mv in b.legal_moves
        zero = b.is_zeroing(mv)
        b.push(mv)
        if b.is_checkmate():
            after = 1
        else:
            w2, d2 = tb.probe_wdl(b), tb.probe_dtz(b)
            clock2 = 0 if zero else b.halfmove_clock
            after = -klass(w2, d2, clock2)
            if abs(w2) == 2 and abs(clock2 + abs(d2) - 100) <= 1: counts["edge"] += 1
        spoiled = (not legal) or after < before
        counts["n"] += 1
        counts["five"] += len(chess.Board(fen).piece_map()) == 5
        counts["spoiled"] += spoiled
        if before == 0:
            counts["draw_n"] += 1
            if kind != "cp" or abs(val) > 2: counts["draw_bad_score"] += 1
        counts["no_tbhits"] += tbhits == 0
        o.write(f"{fen};{wdl};{dtz};{best};{kind} {val};tbhits {tbhits};before {before};after {after};{'SPOILED' if spoiled else 'ok'}\n")
        if counts["n"] % 100 == 0: print(counts, flush=True)
print(counts)
send("quit")
