"""The statistics of a run of `villa games` (summarize, standard_error), its table and its plot."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

from villa_bringup.accounting import KICKOFF_KICK_WITHIN, SPEED_WINDOW, percentile


def _mean(v):
    v = [x for x in v if x is not None]
    return sum(v) / len(v) if v else None


def _total(v):
    """The sum of `v` without its None entries (what an external team's players cannot report); None if all are."""
    v = [x for x in v if x is not None]
    return sum(v) if v else None


def standard_error(v) -> float | None:
    """The standard error of the mean of `v` (None entries left out); None for fewer than 2."""
    v = [x for x in v if x is not None]
    if len(v) < 2:
        return None
    m = sum(v) / len(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1) / len(v))


def summarize(results: list[dict]) -> dict:
    gd = [r["goal_difference"] for r in results]
    out = {"games": len(results), "wins": sum(r["result"] == "W" for r in results),
           "draws": sum(r["result"] == "D" for r in results), "losses": sum(r["result"] == "L" for r in results),
           "goal_difference_mean": _mean(gd), "goal_difference_se": standard_error(gd),
           "simulated_s": sum(r["duration"] for r in results), "wall_s": sum(r["wall"] for r in results),
           "cpu_s": sum(r["cpu"] for r in results)}
    for label in ("A", "B"):
        rs = [r[label] for r in results]
        minutes = sum(r["players"] * r["duration"] / 60.0 for r in results)
        firsts = [x["first_kick"] for x in rs if x["first_kick"] is not None]
        speeds = [v for x in rs for v in x.get("speeds", [])]
        out[label] = {"team": rs[0]["team"] if rs else "", "variant": rs[0]["variant"] if rs else "",
                      "goals": sum(x["score"] for x in rs), "goals_per_game": _mean([x["score"] for x in rs]),
                      "falls_per_player_minute": sum(x["falls"] for x in rs) / max(minutes, 1e-9),
                      "falls_by_cause": dict(sum((Counter(x.get("falls_by_cause", {})) for x in rs),
                                                 Counter()).most_common()),
                      "down": _mean([x["down"] for x in rs]),
                      # the field players' speed in play, pooled over every game's SPEED_WINDOW-s windows
                      "speed_median": percentile(speeds, 0.5), "speed_p90": percentile(speeds, 0.9),
                      "speed_windows": len(speeds),
                      "loc_error_mean": _mean([x["loc_error_mean"] for x in rs]),
                      "loc_error_p95": _mean([x["loc_error_p95"] for x in rs]),
                      "possession": _mean([x["possession"] for x in rs]),
                      "ball_x_mean": _mean([x.get("ball_x_mean") for x in rs]),
                      "attacking_third": _mean([x.get("attacking_third") for x in rs]),
                      "kicks_requested": _total(x["kicks_requested"] for x in rs),
                      "kicks_executed": _total(x["kicks_executed"] for x in rs),
                      "kicks_refused": _total(x["kicks_refused"] for x in rs),
                      "first_kick_mean": _mean(firsts), "games_with_a_kick": len(firsts),
                      # §11.2.1: the team's own kick-offs (the first, and each after a goal against it) whose ball
                      # moved off the spot within 3 s (a kick that falls or misses is not a kicked ball)
                      "kickoffs": sum(len(x.get("kickoff_times", [])) for x in rs),
                      "kickoffs_kicked": sum(t is not None and t <= KICKOFF_KICK_WITHIN
                                             for x in rs for t in x.get("kickoff_times", [])),
                      "kick_ball_moved_mean": _mean(moved := [e["ball_moved"] for x in rs
                                                              for e in x.get("kick_log", []) if "ball_moved" in e]),
                      "kicks_toward_goal": sum(abs(e["off_goal_deg"]) < 45.0 for x in rs
                                               for e in x.get("kick_log", []) if "off_goal_deg" in e),
                      "kicks_followed": len(moved),
                      "free_kicks": sum(x.get("free_kicks", 0) for x in rs),
                      "errors": _total(x["errors"] for x in rs),
                      "cycles": _total(x["cycles"] for x in rs),
                      "late_cycles": _total(x["late_cycles"] for x in rs)}
    kicks = [r for r in results if "penalty" in r]
    if kicks:                                           # a shoot-out: each team's penalty kicks and goals
        out["penalty"] = {label: {"kicks": sum(r["penalty"]["striker"] == label for r in kicks),
                                  "goals": sum(r["penalty"]["striker"] == label and r[label]["score"] > 0
                                               for r in kicks)} for label in ("A", "B")}
    return out


def _kicks(t: dict) -> str:
    if t["kicks_requested"] is None:
        return "n/a (external)"
    return f"{t['kicks_requested']}/{t['kicks_executed']}/{t['kicks_refused']}"


def _late(t: dict) -> str:
    return "n/a (external)" if t["cycles"] is None else f"{t['late_cycles']} ({t['cycles']})"


def table(s: dict) -> str:
    def f(v, fmt="{:.2f}"):
        return "n/a" if v is None else fmt.format(v)

    a, b = s["A"], s["B"]
    se = s["goal_difference_se"]
    rows = [("team (variant)", f"{a['team']} ({a['variant']})", f"{b['team']} ({b['variant']})"),
            ("goals (per game)", f"{a['goals']} ({f(a['goals_per_game'])})",
             f"{b['goals']} ({f(b['goals_per_game'])})"),
            ("falls per player-minute", f(a["falls_per_player_minute"]), f(b["falls_per_player_minute"])),
            ("time down", f(a["down"], "{:.1%}"), f(b["down"], "{:.1%}")),
            (f"field players' speed in play, {SPEED_WINDOW:.0f}-s windows m/s (median, p90)",
             f"{f(a.get('speed_median'))}, {f(a.get('speed_p90'))}",
             f"{f(b.get('speed_median'))}, {f(b.get('speed_p90'))}"),
            ("localization error m (mean, p95)", f"{f(a['loc_error_mean'])}, {f(a['loc_error_p95'])}",
             f"{f(b['loc_error_mean'])}, {f(b['loc_error_p95'])}"),
            ("possession", f(a["possession"], "{:.0%}"), f(b["possession"], "{:.0%}")),
            ("ball x m (own frame; in attacking third)",
             f"{f(a.get('ball_x_mean'), '{:+.2f}')} ({f(a.get('attacking_third'), '{:.0%}')})",
             f"{f(b.get('ball_x_mean'), '{:+.2f}')} ({f(b.get('attacking_third'), '{:.0%}')})"),
            ("kicks requested/executed/refused", _kicks(a), _kicks(b)),
            ("kicked ball: m moved in 3 s (toward goal)",
             f"{f(a.get('kick_ball_moved_mean'))} ({a.get('kicks_toward_goal', 0)}/{a.get('kicks_followed', 0)})",
             f"{f(b.get('kick_ball_moved_mean'))} ({b.get('kicks_toward_goal', 0)}/{b.get('kicks_followed', 0)})"),
            ("s from kick-off to first kick (games)", f"{f(a['first_kick_mean'], '{:.1f}')} ({a['games_with_a_kick']})",
             f"{f(b['first_kick_mean'], '{:.1f}')} ({b['games_with_a_kick']})"),
            (f"own kick-offs, ball moved within {KICKOFF_KICK_WITHIN:.0f} s", f"{a.get('kickoffs_kicked', 0)} of "
             f"{a.get('kickoffs', 0)}", f"{b.get('kickoffs_kicked', 0)} of {b.get('kickoffs', 0)}"),
            ("free kicks awarded (the other team's fouls)", str(a.get("free_kicks", 0)), str(b.get("free_kicks", 0))),
            ("late cycles (of cycles)", _late(a), _late(b))]
    head = (f"villa games: {s['games']} games, A: W {s['wins']} / D {s['draws']} / L {s['losses']}, goal difference "
            f"{f(s['goal_difference_mean'], '{:+.2f}')} +- {f(se)} (standard error); "
            f"{s['simulated_s']:.0f} simulated s in {s['cpu_s']:.0f} CPU s "
            f"({s['simulated_s'] / max(s['cpu_s'], 1e-9):.2f} simulated s per CPU s)")
    pen = s.get("penalty")
    if pen:
        head += (f"\n  penalty shoot-out: A scored {pen['A']['goals']} of {pen['A']['kicks']} penalty kicks, "
                 f"B {pen['B']['goals']} of {pen['B']['kicks']}")
    w = max(len(r[0]) for r in rows)
    lines = [head, f"  {'':<{w}} {'A':>22} {'B':>22}"]
    lines += [f"  {r[0]:<{w}} {r[1]:>22} {r[2]:>22}" for r in rows]
    for label, t in (("A", a), ("B", b)):
        causes = ", ".join(f"{k} {n}" for k, n in t.get("falls_by_cause", {}).items()) or "none"
        lines.append(f"  falls by cause, {label}: {causes}")
    return "\n".join(lines)


def plot(results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    gd = [r["goal_difference"] for r in results]
    lo, hi = (min(gd), max(gd)) if gd else (0, 0)
    ax1.hist(gd, bins=[x - 0.5 for x in range(lo, hi + 2)], color="tab:blue", edgecolor="black")
    ax1.set_xlabel("goal difference (A - B)")
    ax1.set_ylabel("games")
    ax1.set_title(f"goal difference, {len(gd)} games")
    idx = [r["game"] for r in results]
    ax2.plot(idx, [r["A"]["falls"] for r in results], "o-", label=f"A {results[0]['A']['team'] if results else ''}")
    ax2.plot(idx, [r["B"]["falls"] for r in results], "s-", label=f"B {results[0]['B']['team'] if results else ''}")
    ax2.set_xlabel("game")
    ax2.set_ylabel("falls")
    ax2.set_title("falls per game")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
