"""What a villa player costs in CPU through the ROS path: CPU s per simulated s per player, per node, per phase.

Plays `villa match` (villa v AllBall, N v N, the simulator in sync mode) on --world once per composition and phase:
    composition player: one process per player (the nodes composed, EventsExecutor); node: one process per node
    phase standing: no kick-off, every robot stands on its beam spot; play: a game from the kick-off
and prints CPU s (user + system, every process of the player) per simulated s per villa player, per node where the
nodes are processes of their own, and the simulator's share. With --profile, py-spy (PyPI) samples player 1's
processes for the whole phase and the table gets a per-callback breakdown (the node callback each sample was in)
and the hottest functions.

    villa bench cpu [--world villa|simspark] [--composition player node] [--phase standing play] [--players 2]
        [--duration 20] [--seed 1] [--profile] [--json OUT]

Figures are CPU time, which other load on the machine moves less than wall-clock rates; still run it on an idle
machine. --world simspark plays on the real SimSpark (rcssserver3d, installed); --seed seeds villa sim's games.
"""

from __future__ import annotations

import collections
import json
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from villa_bench import common
from villa_bringup import match as M

WORLDS = ("villa", "simspark")
RUN_TIME = "about 5 min on villa sim (2 compositions x 2 phases of 20 s, 2 v 2, plus start-up; estimated)"
SMOKE = ["--composition", "player", "--phase", "standing", "--players", "1", "--duration", "3"]

NODES = ("bridge", "perception", "localization", "motion", "strategy")
TEAM = "villa"
RATE = 100               # py-spy samples per s, --gil: of the threads holding the GIL (Python running, or native code
                         # that keeps the GIL, as a DDS write does); shares of these samples split the process's CPU


def _frame(f: str) -> tuple[str, str]:
    """(function, path below site-packages or the workspace) of a py-spy raw frame 'func (path:line)'."""
    m = re.match(r"(.*) \((.*):\d+\)$", f)
    if not m:
        return f, ""
    fn, path = m.groups()
    for cut in ("/site-packages/", "/lib/python3", "/build/", "/install/"):
        if cut in path:
            path = path.split(cut)[-1]
    return fn, path


ENTRY = re.compile(r"^(_run_module_as_main|_run_code|<module>|main|spin|Thread\._bootstrap(_inner)?|Thread\.run)$")


def callback_of(frames: list[str]) -> str:
    """What a sample was doing: the first villa frame below the process's and threads' entry points -- a node
    callback the executor (C++, not in the stack) called, e.g. 'LocalizationNode._on_observations
    (villa_localization/node.py)', or the bridge's socket thread, named with the step of its loop it was in
    ('BridgeNode._run > BridgeSession.answer'); 'executor (dispatch)' when the sample stopped at the entry itself."""
    rest = [_frame(f) for f in frames]
    rest = [(fn, p) for fn, p in rest if not ENTRY.match(fn)]
    if not rest:
        return "executor (dispatch)"
    fn, path = rest[0]
    if fn.endswith("._run") and len(rest) > 3:                 # a thread's loop: name the step it was in
        return f"{fn} > {rest[3][0]} ({path})"
    return f"{fn} ({path})"


def read_profile(path: Path) -> tuple[collections.Counter, collections.Counter, int]:
    """py-spy raw output -> (samples per callback, self samples per villa function, total samples)."""
    per_cb: collections.Counter = collections.Counter()
    per_fn: collections.Counter = collections.Counter()
    total = 0
    if not path.exists():
        return per_cb, per_fn, 0
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        stack, n = line.rsplit(" ", 1)
        frames = stack.split(";")
        count = int(n)
        total += count
        per_cb[callback_of(frames)] += count
        fn, p = _frame(frames[-1])
        per_fn[f"{fn} ({p})"] += count
    return per_cb, per_fn, total


class Profiler:
    """py-spy on villa player 1's processes while a phase runs (started by villa match's on_start hook)."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.procs: list[tuple[subprocess.Popen, Path]] = []

    def start(self, runners) -> None:
        for r in runners:
            if r.config.team != TEAM:
                continue
            for m in r.managed:
                if m.proc is None or not m.label.startswith(f"/{TEAM}/p1"):
                    continue
                out = self.out_dir / (m.label.strip("/").replace("/", "_") + ".raw")
                cmd = ["py-spy", "record", "--gil", "--nonblocking", "--rate", str(RATE), "--format", "raw",
                       "-o", str(out), "--pid", str(m.proc.pid)]
                self.procs.append((subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), out))

    def finish(self) -> list[Path]:
        """Stop the samplers (their processes ended with the match, or SIGINT now) and return their outputs."""
        outs = []
        for p, out in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
            outs.append(out)
        return outs


def run_phase(server: str, composition: str, phase: str, players: int, duration: float, profile: bool,
              log_root: Path, seed: int = 1) -> dict:
    log_dir = log_root / f"{server}-{composition}-{phase}"
    prof = Profiler(log_dir) if profile else None
    if prof:
        log_dir.mkdir(parents=True, exist_ok=True)
    args = M.match_args(server=server, duration=duration, players=players, composition=composition,
                        seed=seed if server == "villa" else None, log_dir=str(log_dir), standing=phase == "standing",
                        on_start=prof.start if prof else None)
    try:
        result = M.play(args)
    finally:
        outs = prof.finish() if prof else []
    sim_s = result["duration"]
    by = {k: v for k, v in result["cpu_by_process"].items() if k.startswith(f"/{TEAM}/")}
    row = {"server": server, "composition": composition, "phase": phase, "players": players, "sim_s": sim_s,
           "wall_s": result["wall"], "per_player": sum(by.values()) / (sim_s * players),
           "simulator": result["cpu_seconds"].get("simulator", 0.0) / sim_s, "per_node": {}}
    if composition == "node":
        for node in NODES:
            row["per_node"][node] = sum(v for k, v in by.items() if k.endswith(f"/{node}")) / (sim_s * players)
    if outs:
        cb, fn, total = collections.Counter(), collections.Counter(), 0
        for out in outs:
            c, f, t = read_profile(out)
            cb.update(c)
            fn.update(f)
            total += t
        p1 = sum(v for k, v in by.items() if k.startswith(f"/{TEAM}/p1")) / sim_s      # player 1's CPU s per sim s
        row["profile"] = {"samples": total, "player1": p1,
                          "callbacks": {k: v / total for k, v in cb.most_common(12)} if total else {},
                          "functions": {k: v / total for k, v in fn.most_common(15)} if total else {}}
    return row


def print_row(row: dict) -> None:
    nodes = ", ".join(f"{k} {v:.3f}" for k, v in row["per_node"].items())
    print(f"{row['server']:<8} {row['composition']:<6} {row['phase']:<8} {row['per_player']:8.3f} "
          f"{row['simulator']:9.3f} {row['sim_s']:6.1f} {row['wall_s']:6.1f}  {nodes}", flush=True)
    prof = row.get("profile")
    if prof:
        print(f"    player 1: {prof['player1']:.3f} CPU s per simulated s; {prof['samples']} samples holding the GIL, "
              "per callback: share, and that share of player 1's CPU s per simulated s")
        for k, v in prof["callbacks"].items():
            print(f"      {100 * v:5.1f} %  {v * prof['player1']:6.3f}  {k}")
        print("    hottest functions (share of player 1's samples):")
        for k, v in prof["functions"].items():
            print(f"      {100 * v:5.1f} %  {k}")


def add_arguments(ap) -> None:
    common.add_world(ap, socket=False)
    common.add_seed(ap)
    ap.add_argument("--composition", nargs="+", choices=("player", "node"), default=["player", "node"],
                    help="a process per player, per node, or both in turn (default both)")
    ap.add_argument("--phase", nargs="+", choices=("standing", "play"), default=["standing", "play"],
                    help="robots standing without a kick-off, a game from the kick-off, or both (default both)")
    ap.add_argument("--players", type=int, default=2, help="players per team (default 2)")
    ap.add_argument("--duration", type=float, default=20.0, help="simulated s per phase (default 20)")
    ap.add_argument("--profile", action="store_true", help="py-spy per-callback breakdown of player 1")
    ap.add_argument("--json", default=None, help="also write the rows to this file")


def run(a) -> int:
    if a.duration <= 0 or not 1 <= a.players <= 11:
        print("cpu: --duration must be positive and --players 1..11", file=sys.stderr)
        return 2
    if a.profile and shutil.which("py-spy") is None:
        print("cpu: --profile needs py-spy (pip install py-spy)", file=sys.stderr)
        return 2
    if (why := M.server_unavailable(a.world)) is not None:
        print(f"cpu: --world {a.world}: {why}", file=sys.stderr)
        return 2
    rows = []
    server = a.world
    where = "SimSpark (rcssserver3d)" if server == "simspark" else "villa sim (own process)"
    with tempfile.TemporaryDirectory(prefix="villa-cpu-") as tmp:
        print(f"{where}: CPU s per simulated s, villa v AllBall {a.players} v {a.players}, robot types of "
              f"villa_bringup's team.yaml, {a.duration:.0f} simulated s a phase", flush=True)
        print(f"{'server':<8} {'comp.':<6} {'phase':<8} {'player':>8} {'simulator':>9} {'sim s':>6} {'wall s':>6}  "
              "per node (node composition)")
        for comp in a.composition:
            for phase in a.phase:
                try:
                    row = run_phase(server, comp, phase, a.players, a.duration, a.profile, Path(tmp), a.seed)
                except (RuntimeError, OSError, M.ConfigError) as e:     # MatchError, a server that did not start
                    print(f"{server:<8} {comp:<6} {phase:<8} FAILED: {e}", flush=True)
                    continue
                rows.append(row)
                print_row(row)
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=2))
    return 0 if rows else 1
