"""Many games of `villa games` on worker processes (run_games), each game's JSON line as it ends, and the progress
line (Progress)."""

from __future__ import annotations

import json
import logging
import math
import multiprocessing as mp
import os
import queue
import signal
import sys
import time
from pathlib import Path

from villa_bringup.games.play import play_game
from villa_bringup.games.spec import GameSpec
from villa_sim.lifetime import die_with_parent


def _worker(jobs, results, stop, log_dir: str, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)          # the main process stops us through `stop`
    # ... or by ending: SIGKILL (SIGTERM raises KeyboardInterrupt here, interruptible(), and a worker whose game
    # was interrupted took the next one); its servers then get their own parent-death signal
    die_with_parent(parent, signal.SIGKILL)
    logging.basicConfig(filename=os.path.join(log_dir, f"worker{os.getpid()}.log"), level=logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    while not stop.is_set():
        try:
            spec = jobs.get(timeout=0.2)
        except queue.Empty:
            continue
        if spec is None:
            return
        def progress(played: float, index=spec.index, last=[0.0]) -> None:  # noqa: B006  (this game's clock)
            now = time.monotonic()
            if now - last[0] > 0.5:
                last[0] = now
                results.put(("progress", index, played))

        try:
            results.put(("done", spec.index, play_game(spec, stop, progress)))
        except KeyboardInterrupt:
            results.put(("stopped", spec.index, None))
        except Exception as e:  # one game's failure is reported; the others go on
            logging.getLogger("villa_games").exception("game %d failed", spec.index)
            results.put(("error", spec.index, f"{type(e).__name__}: {e}"))


class Progress:
    """One line, rewritten in place on a terminal (a new line every 10 s otherwise)."""

    def __init__(self, total: int, duration: float, stream=sys.stderr) -> None:
        self.total, self.duration, self.stream = total, duration, stream
        self.tty = stream.isatty()
        self.t0 = time.monotonic()
        self.last = 0.0

    def show(self, done: int, running: dict[int, float], force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < (0.5 if self.tty else 10.0):
            return
        self.last = now
        simulated = done * self.duration + sum(running.values())
        frac = simulated / max(self.total * self.duration, 1e-9)
        wall = now - self.t0
        rate = simulated / max(wall, 1e-9)
        eta = (self.total * self.duration - simulated) / rate if rate > 0 else math.inf
        bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
        line = (f"villa games [{bar}] {done}/{self.total} games, {len(running)} running, "
                f"{rate:.2f} simulated s per wall s, ETA {eta / 60:.1f} min" if math.isfinite(eta) else "")
        if self.tty:
            self.stream.write("\r" + line[:160].ljust(160))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def run_games(specs: list[GameSpec], jobs: int, out: Path, echo=print) -> tuple[list[dict], list[str], bool]:
    """Play `specs` on `jobs` worker processes. (results by game index, error lines, interrupted)."""
    ctx = mp.get_context("fork")
    q_jobs, q_results, stop = ctx.Queue(), ctx.Queue(), ctx.Event()
    for s in specs:
        q_jobs.put(s)
    workers = [ctx.Process(target=_worker, args=(q_jobs, q_results, stop, str(out), os.getpid()),
                          daemon=True)
               for _ in range(max(1, min(jobs, len(specs))))]
    for _ in workers:
        q_jobs.put(None)
    for w in workers:
        w.start()
    results: dict[int, dict] = {}
    errors: list[str] = []
    running: dict[int, float] = {}
    bar = Progress(len(specs), specs[0].duration if specs else 0.0)
    interrupted = False
    lines = open(out / "games.jsonl", "a")
    try:
        while len(results) + len(errors) < len(specs):
            try:
                kind, index, payload = q_results.get(timeout=0.5)
            except queue.Empty:
                if not any(w.is_alive() for w in workers):
                    errors.append("the worker processes ended before every game was played")
                    break
                bar.show(len(results), running)
                continue
            if kind == "progress":
                running[index] = payload
            elif kind == "done":
                running.pop(index, None)
                results[index] = payload
                text = json.dumps(payload)
                lines.write(text + "\n")
                lines.flush()
                if bar.tty:
                    sys.stderr.write("\r" + " " * 160 + "\r")
                echo(text)
            elif kind == "error":
                running.pop(index, None)
                errors.append(f"game {index}: {payload}")
                echo(f"villa games: game {index} failed: {payload}", file=sys.stderr)
            bar.show(len(results), running, force=kind != "progress")
    except KeyboardInterrupt:
        interrupted = True
        stop.set()
    finally:
        stop.set()
        deadline = time.monotonic() + 30
        for w in workers:
            w.join(timeout=max(0.1, deadline - time.monotonic()))
        for w in workers:
            if w.is_alive():
                w.terminate()
                w.join(timeout=5)
        while True:                                     # games that finished while we were stopping
            try:
                kind, index, payload = q_results.get_nowait()
            except (queue.Empty, OSError, ValueError):
                break
            if kind == "done" and index not in results:
                results[index] = payload
                lines.write(json.dumps(payload) + "\n")
        lines.close()
        bar.close()
    return [results[i] for i in sorted(results)], errors, interrupted
