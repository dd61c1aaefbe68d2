"""Watch recorders: every version of every object of a collection, kept for a test to read afterwards."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from assay_dev.cluster import ControlPlane, Credentials, KubeApi
from assay_dev.cluster.kubeapi import Obj
from assay_operator.evaluation.build import names

# --- watch recorders ---------------------------------------------------------------------------------------


@dataclass
class Recorded:
    type: str
    object: Obj
    at: float


@dataclass
class Recorder:
    """Lists then watches a collection in a thread and keeps every event, so a test sees each version of
    an object, even one that lasted milliseconds (a status between two patches)."""

    credentials: Credentials
    path: str
    on_event: Callable[[str, Obj], None] | None = None
    """Called in the watch thread for every event (to react at once, e.g. kill a process)."""
    events: list[Recorded] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._api = KubeApi(self.credentials)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._listed = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"recorder {self.path}", daemon=True)

    def __enter__(self) -> Recorder:
        self._thread.start()
        if not self._listed.wait(30):
            raise TimeoutError(f"could not list {self.path}")
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        self._api.close()
        self._thread.join(10)

    def _record(self, kind: str, obj: Obj) -> None:
        with self._lock:
            self.events.append(Recorded(kind, obj, time.monotonic()))
        if self.on_event is not None:
            self.on_event(kind, obj)

    def _run(self) -> None:
        version = ""
        while not self._stop.is_set():
            try:
                if not version:
                    listing = self._api.get(self.path)
                    for item in listing["items"]:
                        self._record("LISTED", item)
                    version = listing["metadata"]["resourceVersion"]
                    self._listed.set()
                for event in self._api.watch(self.path, version, timeout_seconds=30):
                    if event["type"] == "ERROR":
                        version = ""
                        break
                    obj = event["object"]
                    version = obj["metadata"]["resourceVersion"]
                    if event["type"] != "BOOKMARK":
                        self._record(event["type"], obj)
            except Exception:
                if self._stop.is_set():
                    return
                time.sleep(0.2)

    def snapshot(self) -> list[Recorded]:
        with self._lock:
            return list(self.events)

    def versions(self, name: str) -> list[Obj]:
        return [e.object for e in self.snapshot() if e.object["metadata"]["name"] == name]

    def uids(self) -> dict[str, set[str]]:
        """name -> the uids ever seen under that name."""
        seen: dict[str, set[str]] = {}
        for e in self.snapshot():
            seen.setdefault(e.object["metadata"]["name"], set()).add(e.object["metadata"]["uid"])
        return seen


ONE_RUN = {names.ANSWER: 1, names.JUDGE: 1}
"""A generation's Jobs, by component, once its verdict is in: exactly one answer Job and one judge Job."""


def jobs_per_generation(recorder: Recorder) -> dict[tuple[str, str, str], set[str]]:
    """(owning Evaluation's name, generation label, component: answer or judge) -> uids of every Job ever
    seen for it."""
    seen: dict[tuple[str, str, str], set[str]] = {}
    for e in recorder.snapshot():
        meta = e.object["metadata"]
        owner = next((r["name"] for r in meta.get("ownerReferences") or [] if r["kind"] == "Evaluation"), "?")
        labels = meta.get("labels") or {}
        key = (owner, labels.get(names.LABEL_GENERATION, "?"), labels.get(names.LABEL_COMPONENT, "?"))
        seen.setdefault(key, set()).add(meta["uid"])
    return seen


@contextlib.contextmanager
def recording(
    control_plane: ControlPlane, path: str, on_event: Callable[[str, Obj], None] | None = None
) -> Iterator[Recorder]:
    with Recorder(control_plane.admin_credentials(), path, on_event) as recorder:
        yield recorder


def jobs_per_generation_of(recorder: Recorder, name: str) -> dict[str, dict[str, int]]:
    """generation -> component -> how many distinct Jobs (uids) were ever seen for Evaluation `name`."""
    found: dict[str, dict[str, int]] = {}
    for (evaluation_name, generation, component), uids in jobs_per_generation(recorder).items():
        if evaluation_name == name:
            found.setdefault(generation, {})[component] = len(uids)
    return found
