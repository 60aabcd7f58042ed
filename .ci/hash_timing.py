#!/usr/bin/env python3
"""Times the hash table at size: `setoption name Hash value N` to `readyok`,
`ucinewgame` to `readyok`, and the first search after the resize
(`go depth D` from the start position to `bestmove`), each in a fresh
engine process; prints one line per run and the medians.

--pause S waits S seconds between the resize's `readyok` and the `go` (a
GUI starting a game); `--pause filled` waits instead until the process's
RssAnon holds the whole table (pages faulted in, at most 120 s); AnonHugePages is the process's memory in 2 MB pages
after the search (/proc/PID/smaps_rollup).

Several engines are run in turn, run by run, so that a machine whose load
changes treats them alike.

Usage: hash_timing.py ENGINE... [--mb 1024 8192] [--runs 5] [--depth 14] [--pause 0]
"""
import argparse
import statistics
import subprocess
import time


def session(engine, mb, depth, pause):
    p = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, bufsize=1)

    def send(cmd):
        p.stdin.write(cmd + "\n")
        p.stdin.flush()

    def wait(prefix):
        while True:
            line = p.stdout.readline()
            if not line:
                raise RuntimeError("engine exited")
            if line.startswith(prefix):
                return line

    send("uci")
    wait("uciok")
    send("isready")
    wait("readyok")
    t = time.perf_counter()
    send(f"setoption name Hash value {mb}")
    send("isready")
    wait("readyok")
    resize = time.perf_counter() - t
    if pause == "filled":
        deadline = time.time() + 120
        while time.time() < deadline:
            rss = next(int(l.split()[1]) for l in open(f"/proc/{p.pid}/status")
                       if l.startswith("RssAnon:"))
            if rss >= mb * 1024 * 0.98:
                break
            time.sleep(0.05)
    else:
        time.sleep(float(pause))
    t = time.perf_counter()
    send("position startpos")
    send(f"go depth {depth}")
    wait("bestmove")
    first = time.perf_counter() - t
    huge = 0
    for line in open(f"/proc/{p.pid}/smaps_rollup"):
        if line.startswith("AnonHugePages:"):
            huge = int(line.split()[1]) // 1024
    t = time.perf_counter()
    send("ucinewgame")
    send("isready")
    wait("readyok")
    newgame = time.perf_counter() - t
    send("quit")
    p.wait()
    return resize, newgame, first, huge


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("engines", nargs="+")
    ap.add_argument("--mb", type=int, nargs="+", default=[1024, 8192])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--depth", type=int, default=14)
    ap.add_argument("--pause", default="0")
    args = ap.parse_args()
    for mb in args.mb:
        runs = {e: [] for e in args.engines}
        for i in range(args.runs):
            for engine in args.engines:
                r = session(engine, mb, args.depth, args.pause)
                runs[engine].append(r)
                print(f"{engine} Hash {mb}: setoption->readyok {r[0]:.3f} s, ucinewgame->readyok {r[1]:.3f} s, "
                      f"first go depth {args.depth} {r[2]:.3f} s, AnonHugePages {r[3]} MB", flush=True)
        for engine in args.engines:
            med = [statistics.median(x[k] for x in runs[engine]) for k in range(3)]
            print(f"{engine} Hash {mb} median of {args.runs}: setoption {med[0]:.3f} s, "
                  f"ucinewgame {med[1]:.3f} s, first search {med[2]:.3f} s (pause {args.pause} s)", flush=True)


if __name__ == "__main__":
    main()
