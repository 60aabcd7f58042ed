"""Mean centipawn loss per level: each level's move (`go nodes 800000`, so the
level's own budget decides) against a full-strength judge at `go depth 12`.
Usage: cploss.py ENGINE SEED COUNT POSITIONS (datagen output: "fen | ..." lines).
Prints a markdown row per level: level, positions, mean loss, share >= 200 cp,
share of the judge's own move."""
import subprocess, sys, random, statistics
ENGINE = sys.argv[1]
class E:
    def __init__(self):
        self.p = subprocess.Popen([ENGINE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci"); self.wait("uciok")
    def send(self, s): self.p.stdin.write(s + "\n"); self.p.stdin.flush()
    def wait(self, prefix):
        lines = []
        while True:
            l = self.p.stdout.readline().strip(); lines.append(l)
            if l.startswith(prefix): return lines
    def go(self, fen, cmd):
        self.send("position fen " + fen); self.send(cmd)
        lines = self.wait("bestmove")
        score = None
        for l in lines:
            t = l.split()
            if "score" in t and "multipv" in t and t[t.index("multipv") + 1] != "1": continue
            if "score" in t:
                i = t.index("score")
                score = int(t[i + 2]) if t[i + 1] == "cp" else (30000 if int(t[i + 2]) > 0 else -30000)
        return lines[-1].split()[1], score
random.seed(int(sys.argv[2]))
lines = [l.split("|")[0].strip() for l in open(sys.argv[4])]
fens = random.sample(lines, int(sys.argv[3]))
judge = E()
levels = [1350, 1500, 1700, 1900, 2100, 2200, 2300]
players = {}
for elo in levels:
    p = E()
    p.send("setoption name UCI_LimitStrength value true"); p.send(f"setoption name UCI_Elo value {elo}")
    players[elo] = p
loss = {e: [] for e in levels}
for n, fen in enumerate(fens):
    judge.send("ucinewgame")
    best_move, best = judge.go(fen, "go depth 12")
    for elo, p in players.items():
        move, _ = p.go(fen, "go nodes 800000")
        if move == best_move:
            loss[elo].append(0); continue
        judge.send("ucinewgame")
        _, played = judge.go(fen, f"go depth 12 searchmoves {move}")
        loss[elo].append(max(0, best - played))
for elo in levels:
    l = [min(x, 1000) for x in loss[elo]]
    print(f"| {elo} | {len(l)} | {statistics.mean(l):.1f} | {100*sum(1 for x in l if x >= 200)/len(l):.1f}% | {100*sum(1 for x in l if x == 0)/len(l):.1f}% |")
