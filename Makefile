# villa: the two README commands and a few helpers. Every target sets the environment up first
# (scripts/setup.sh is idempotent and takes about a second when nothing changed).
.PHONY: demo test setup lint doctor clean

demo: setup  ## run the main job: a match on the embedded simulator (villa v AllBall, 2 v 2, two halves of 300 simulated s)
	@bash -c 'source scripts/env.sh && villa match --duration 600 $(MATCH_ARGS)'

test:  ## run every package's tests (what CI runs)
	@scripts/test.sh

setup:  ## create .venv, apply the wheel fixes, colcon build
	@scripts/setup.sh

lint: setup
	@.venv/bin/ruff check .

doctor: setup
	@bash -c 'source scripts/env.sh && villa doctor'

clean:  ## remove the build (keeps .venv)
	rm -rf ros2_ws/build ros2_ws/install ros2_ws/log .villa-logs .villa-third-party
