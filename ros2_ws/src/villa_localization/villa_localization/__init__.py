"""villa_localization: particle filter, ball Kalman filter, world model (UT Austin Villa 2011 §5, §9.2)."""
