"""villa_bridge: the seam between the stack and a body (SimSpark, rcssservermj, NAOqi)."""
