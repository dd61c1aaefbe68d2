"""What one cell's agent may reach, as a Landlock ruleset, and the record of what the kernel enforced.

A cell's program may write its workspace (which holds its HOME and TMPDIR), read its inputs there and the
toolchain (system folders, the interpreter, the pinned CLIs and `rg`, the programs its command names), use
/dev/null and the random devices, and read its own /proc/<pid>; nothing else: not the run folder, not
another cell's workspace, not the suite, its keys or the runner's state. With ABI 4 it connects over TCP to
its gateway's port only and binds nothing; with ABI 6 it signals and reaches abstract Unix sockets only
within its own processes.

Landlock only adds rights: a rule on a folder covers all beneath it. So a grant that would cover a protected
path (the suite, its keys, the run's output, the workspaces' folder, the runner's config and token) is
split into its entries around it, and one inside a protected path is dropped: never applied.
"""

from __future__ import annotations

import functools
import os
import sys
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from assay_runner.contract import ISOLATION_SHORTFALL, Isolation
from assay_runner.sandbox import landlock, seccomp
from assay_runner.sandbox.landlock import (
    EXECUTE,
    IOCTL_DEV,
    MAKE_BLOCK,
    MAKE_CHAR,
    READ_DIR,
    READ_FILE,
    WRITE_FILE,
    LandlockError,
    OpenedPaths,
    Ruleset,
)

READ = EXECUTE | READ_FILE | READ_DIR
WRITE = (1 << 16) - 1 & ~(MAKE_CHAR | MAKE_BLOCK | IOCTL_DEV)  # everything but device nodes and ioctls
SYSTEM_PATHS = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/opt")
DEVICES = {
    "/dev/null": READ_FILE | WRITE_FILE,
    "/dev/zero": READ_FILE,
    "/dev/urandom": READ_FILE,
    "/dev/random": READ_FILE,
}
SYSTEM_INFO = ("/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/loadavg", "/proc/version")
"""Machine-wide facts runtimes read (libuv's CPU count, memory): nothing of another process."""
MAX_CARVE_DEPTH = 6
"""How deep a granted folder is split around a protected path inside it (/etc/assay/suite: 2)."""
FULL_ABI = landlock.SCOPE_ABI
"""The ABI that enforces all three: files (1), TCP (4), signals and abstract sockets (6)."""


def _covers(outer: str, inner: str) -> bool:
    """Whether a rule on `outer` would reach `inner` (one is the other, or beneath it)."""
    return inner == outer or inner.startswith(outer.rstrip("/") + "/")


@functools.lru_cache(maxsize=4096)
def _real(path: str) -> str:
    """Where a path leads. Cached: the grants are the runner's paths (toolchain, PATH, the run's folders),
    the same for every cell, and resolving them again costs each cell's start about a millisecond."""
    return os.path.realpath(path)


@dataclass(frozen=True)
class CellPolicy:
    """One cell's grants, before the kernel's ABI is known."""

    writable: Sequence[str]
    readable: Sequence[str] = ()
    """Beyond the system folders: the toolchain and the programs the command names."""
    connect_ports: Sequence[int] = ()
    protected: Sequence[str] = ()
    """What no grant may cover (the suite, its keys, the run's folders): a grant that would is dropped."""


@dataclass
class Confined:
    """A cell's sandbox, ready: `preexec` confines the agent (a `landlock.Confinement`: given to
    `run_process`, which has the launcher do it, or the forked child without one); `close` once the agent
    started."""

    isolation: Isolation
    preexec: Callable[[], None] | None = None
    ruleset: Ruleset | None = None
    dropped: list[str] = field(default_factory=list)

    def close(self) -> None:
        if self.ruleset is not None:
            self.ruleset.close()


@functools.lru_cache(maxsize=1)
def interpreter_paths() -> tuple[str, ...]:
    """The runner's own Python (its prefix and its base's): agents written in Python run on it, and its
    scripts folder holds the project's `rg`."""
    return tuple(sorted({sys.prefix, sys.base_prefix, os.path.dirname(_real(sys.executable))}))


def program_paths(argv: Sequence[str], path_env: str) -> list[str]:
    """What the command itself names: its executable (found on PATH) and every absolute path in its
    arguments that is a file (a script), plus each PATH folder. For a folder that is `node_modules/.bin`
    its `node_modules` too, where the links in it lead (the pinned CLIs)."""
    folders, granted = _path_folders(path_env)
    found = list(granted)
    if argv:
        exe = argv[0]
        if not os.path.isabs(exe):
            exe = next((os.path.join(f, exe) for f in folders if os.path.isfile(os.path.join(f, exe))), exe)
        for candidate in (exe, *argv[1:]):
            if os.path.isabs(candidate) and os.path.isfile(candidate):
                found += [candidate, _real(candidate)]
    return found


@functools.lru_cache(maxsize=64)
def _path_folders(path_env: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """PATH's folders, and what to grant for them: the same PATH for every cell of a run, resolved once."""
    folders = tuple(p for p in path_env.split(os.pathsep) if os.path.isabs(p) and os.path.isdir(p))
    found: list[str] = []
    for folder in folders:
        found.append(folder)
        real = _real(folder)
        if os.path.basename(real) == ".bin" and os.path.basename(os.path.dirname(real)) == "node_modules":
            found.append(os.path.dirname(real))
    return folders, tuple(found)


def _beside(path: str, protected: tuple[str, ...], depth: int = 0) -> tuple[str, ...]:
    """What to grant for `path` so that no protected path is reached: the path itself; nothing when it is
    (or is inside) a protected path; its entries, each the same way, when a protected path is beneath it.
    Landlock cannot take a folder out of a granted one, so /etc with the suite in /etc/assay/suite (as in an
    answer pod) is granted entry by entry, without /etc/assay/suite."""
    real = _real(path)
    if any(_covers(p, real) for p in protected):
        return ()
    if not any(_covers(real, p) for p in protected):
        return (path,)
    if depth >= MAX_CARVE_DEPTH or not os.path.isdir(real):
        return ()
    try:
        entries = sorted(os.listdir(real))
    except OSError:
        return ()
    return tuple(kept for name in entries for kept in _beside(os.path.join(real, name), protected, depth + 1))


@functools.lru_cache(maxsize=256)
def _grants(path: str, protected: tuple[str, ...]) -> tuple[str, ...]:
    return _beside(path, protected)


def confine(policy: CellPolicy, abi: int, opened: OpenedPaths | None = None) -> Confined:
    """The cell's ruleset under this ABI (0: none), and the record of what it enforces. `opened`: the run's
    rules opened so far (`Sandbox`), reused and added to; None opens them for this cell alone."""
    if abi < 1:
        reason = "this kernel has no Landlock (or it is turned off): nothing confines the agent"
        return Confined(Isolation.model_construct(reason=reason))
    protected = tuple(sorted({_real(p) for p in policy.protected}))
    dropped: list[str] = []
    own = opened is None
    rules = OpenedPaths(abi) if opened is None else opened
    ruleset = Ruleset(abi, network=True, scoped=True)
    try:
        for path in policy.writable:
            ruleset.allow_path(path, WRITE)
        for path in _unique([*SYSTEM_PATHS, *policy.readable]):
            granted = _grants(path, protected)
            if granted != (path,):
                dropped.append(path)
            for kept in granted:
                _add(ruleset, rules, kept, READ)
        for path, rights in DEVICES.items():
            _add(ruleset, rules, path, rights)
        for path in SYSTEM_INFO:
            _add(ruleset, rules, path, READ_FILE)
        for port in sorted(set(policy.connect_ports)):
            ruleset.allow_connect(port)
    except LandlockError:
        ruleset.close()
        raise
    finally:
        if own:
            rules.close()  # the ruleset holds its rules: the descriptors are no longer needed
    missing = []
    if abi < landlock.NETWORK_ABI:
        missing.append(
            f"TCP is not confined (needs Landlock ABI {landlock.NETWORK_ABI}, the kernel has {abi})"
        )
    if abi < landlock.SCOPE_ABI:
        missing.append(
            f"signals and abstract sockets are not scoped (needs ABI {landlock.SCOPE_ABI}, "
            f"the kernel has {abi})"
        )
    if seccomp.PROGRAM is None:
        missing.append("Unix sockets are not refused (no seccomp filter for this machine)")
    # Constructed, not validated: the values are this function's own, and validating would build the wire
    # model's schema (deferred, `contract.WireModel`) before the first agent starts, ~12 ms; run.warmup builds
    # it while the first agents run.
    isolation = Isolation.model_construct(
        landlock_abi=abi,
        filesystem=True,
        network=abi >= landlock.NETWORK_ABI,
        scoped=abi >= landlock.SCOPE_ABI,
        unix_sockets_refused=seccomp.PROGRAM is not None,
        reason="; ".join(missing) or None,
    )
    return Confined(isolation, ruleset.confine(seccomp.PROGRAM), ruleset, dropped)


def _add(ruleset: Ruleset, rules: OpenedPaths, path: str, rights: int) -> None:
    rule = rules.rule(path, rights)
    if rule is not None:  # nothing there: nothing to reach
        ruleset.add(rule, path)


def _unique(paths: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(paths))


def shortfall(abi: int) -> str | None:
    """Why `isolation: required` cannot be met under this ABI (None: it can)."""
    if abi >= FULL_ABI:
        return None
    have = f"Landlock ABI {abi}" if abi else "no Landlock"
    return (
        f"{ISOLATION_SHORTFALL}{have}; ABI {FULL_ABI} or later (Linux 6.12+) confines "
        "each agent's files, TCP, signals and abstract sockets. Run on such a kernel, or with "
        "isolation: best-effort (each cell's result then says what was not enforced)"
    )


def gateway_port(url: str) -> int | None:
    """The TCP port a gateway URL is reached on (None: no URL, or not http(s))."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if port is not None:
        return port
    return {"http": 80, "https": 443}.get(parts.scheme)


@dataclass(frozen=True)
class Sandbox:
    """The run's sandbox: the ABI in use and what no cell may reach; `for_cell` makes each cell's. The
    grants every cell shares are opened once (`opened`), closed when the sandbox is (`close`, or when it is
    collected)."""

    abi: int
    protected: Sequence[str] = ()
    opened: OpenedPaths = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        opened = OpenedPaths(self.abi)
        object.__setattr__(self, "opened", opened)
        weakref.finalize(self, opened.close)

    def close(self) -> None:
        self.opened.close()

    def for_cell(
        self, workspace: Path, argv: Sequence[str], env: Mapping[str, str], gateway: str
    ) -> Confined:
        port = gateway_port(gateway)
        policy = CellPolicy(
            writable=[str(workspace)],
            readable=[*interpreter_paths(), *program_paths(argv, env.get("PATH", ""))],
            connect_ports=[port] if port is not None else [],
            protected=[*self.protected, str(workspace.parent)],
        )
        return confine(policy, self.abi, self.opened)
