"""villa_motion: walk engine, skills, head control (UT Austin Villa 2011 §4.1, §7, §8, §9.3, §10)."""
