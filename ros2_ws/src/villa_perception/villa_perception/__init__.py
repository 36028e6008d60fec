"""villa_perception: vision to observations, visual memory, fall detection (UT Austin Villa 2011 §4, §8)."""
