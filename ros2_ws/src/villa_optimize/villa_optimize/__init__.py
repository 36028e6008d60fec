"""villa_optimize: optimization tasks from phases and CMA-ES on villa sim (UT Austin Villa 2011 report §10.3, §13.2)."""
