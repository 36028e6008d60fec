"""The Nao and the SimSpark field it plays on: joint table, kinematics, model files. No rclpy here."""
