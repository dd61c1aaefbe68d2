"""One reconcile at a time per Evaluation in this process: starting a run and starting its judge phase both
create children, and each must see what the other made (creation is idempotent across processes anyway:
a 409 is adopted)."""

from __future__ import annotations

import threading
from collections import defaultdict

_locks: defaultdict[tuple[str, str], threading.RLock] = defaultdict(threading.RLock)
_guard = threading.Lock()


def lock(namespace: str, name: str) -> threading.RLock:
    with _guard:
        return _locks[(namespace, name)]
