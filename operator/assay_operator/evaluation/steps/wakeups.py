"""Evaluations waiting for a ConfigMap (their brain, suite or KB), indexed by the ConfigMap they wait for,
so the ConfigMap's creation wakes them at once (a watch) instead of at kopf's next retry (up to two minutes
later). In memory: after a restart, resuming every Evaluation fills it again."""

from __future__ import annotations

import threading
from collections import defaultdict

Key = tuple[str, str]


class Wakeups:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: defaultdict[Key, set[str]] = defaultdict(set)

    def wait(self, namespace: str, config_map: str, evaluation: str) -> None:
        with self._lock:
            self._waiting[(namespace, config_map)].add(evaluation)

    def appeared(self, namespace: str, config_map: str) -> set[str]:
        """The Evaluations waiting for this ConfigMap; they are no longer waiting (a wake that finds another
        dependency missing waits again)."""
        with self._lock:
            return self._waiting.pop((namespace, config_map), set())

    def waiting_for(self, namespace: str, config_map: str) -> set[str]:
        with self._lock:
            return set(self._waiting.get((namespace, config_map), ()))

    def reset(self) -> None:
        """Nothing waiting, as in a fresh process (tests)."""
        with self._lock:
            self._waiting.clear()


WAKEUPS = Wakeups()
