"""villa_strategy: team strategy after the UT Austin Villa 2011 team report."""
