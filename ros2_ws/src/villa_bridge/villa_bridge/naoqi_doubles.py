"""Test doubles of the NAOqi services the bridge uses (ALMotion, ALMemory, ALRobotPosture, DCM), served on a
standalone `qi.Session` through the real libqi protocol: for the tests, `villa bench naoqi_rate`, and for trying the
NAOqi bridge without a robot. They record the calls they get and serve settable sensor values; nothing moves."""

from __future__ import annotations

from villa_bridge import naoqi as N


class FakeMotion:
    def __init__(self):
        self.calls = []

    def setAngles(self, names, angles, speed):
        self.calls.append(("setAngles", list(names), list(angles), speed))

    def wakeUp(self):
        self.calls.append(("wakeUp",))

    def rest(self):
        self.calls.append(("rest",))

    def setStiffnesses(self, names, value):
        self.calls.append(("setStiffnesses", names, value))


class FakeMemory:
    def __init__(self):
        self.values = {k: 0.0 for k in N.ALL_KEYS}

    def getListData(self, keys):
        return [self.values[k] for k in keys]


class FakePosture:
    def __init__(self):
        self.calls = []

    def goToPosture(self, name, speed):
        self.calls.append((name, speed))
        return True


class FakeDCM:
    def __init__(self):
        self.aliases, self.sets = [], []

    def createAlias(self, alias):
        self.aliases.append(alias)
        return alias

    def setAlias(self, cmd):
        self.sets.append(cmd)

    def getTime(self, delay):
        return 1000 + delay


def serve(url: str = "tcp://127.0.0.1:0", dcm: bool = True):
    """A listening qi.Session hosting the doubles: (session, {service name: double}). Close the session to stop."""
    import qi

    server = qi.Session()
    server.listenStandalone(url)
    fakes = {"ALMotion": FakeMotion(), "ALMemory": FakeMemory(), "ALRobotPosture": FakePosture()}
    if dcm:
        fakes["DCM"] = FakeDCM()
    for name, obj in fakes.items():
        server.registerService(name, obj)
    return server, fakes
