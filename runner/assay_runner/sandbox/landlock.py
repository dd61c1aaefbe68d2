"""Landlock, through its three system calls: a process restricts itself (and everything it starts) to the
files, TCP ports and scopes a ruleset names, with no privilege (Linux 5.13 and later; docs.kernel.org
/userspace-api/landlock.html).

No binding on PyPI covers the network rules and the scopes (checked 2026-12-05: `pip index versions
landlock` finds none), so this is ctypes over `syscall(2)`, standard library only.

The ruleset is built in the runner (paths opened there, with O_PATH), and only the last steps run in the
agent's own process before it executes the agent (`Ruleset.confine`): the rule for its own `/proc/<pid>`,
which only that process knows, then every capability dropped, PR_SET_NO_NEW_PRIVS, the seccomp filter and
landlock_restrict_self. Landlock confines files, TCP, signals and abstract sockets, not what a capability
allows: an agent of a root runner kept them all and sniffed the loopback with a packet socket (measured);
with none, it is as an unprivileged user's.
The launcher does them (`launcher.c`, started with vfork); without it, a child forked from the runner
does them in Python (`Confinement` called as subprocess's preexec_fn), with nothing imported or formatted
and every ctypes argument made ahead, since that child copies each page it writes.

The paths a run grants every cell (the system folders, the toolchain) are opened once (`OpenedPaths`) and
their rules added to each cell's ruleset from the open descriptors: a cell's ruleset then opens only its
workspace (bench/sandbox_spawn.py measures both).

Which rights a ruleset may name depends on the kernel's ABI (`abi()`): naming a right the kernel does not
know is EINVAL, so `handled_*` below are per ABI.
"""

from __future__ import annotations

import ctypes
import os
import platform
import stat
from collections.abc import Callable

# x86_64 and aarch64 share these numbers (the syscalls came after the tables were unified).
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
SUPPORTED_MACHINES = ("x86_64", "aarch64", "arm64")
CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH = 1
RULE_NET_PORT = 2
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_READ, PR_CAPBSET_DROP = 23, 24
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
CAPABILITY_VERSION_3 = 0x20080522
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

ABI_CAP_ENV = "ASSAY_LANDLOCK_ABI_MAX"
"""For tests only: use at most this ABI (0: as if the kernel had no Landlock). It can only lower what the
kernel gives, never raise it."""

# File-system rights (include/uapi/linux/landlock.h).
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2: link or rename across directories
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
FS_ABI_1 = (1 << 13) - 1
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
"""The only rights a rule on a file (not a directory) may carry."""

# Network rights (ABI 4) and scopes (ABI 6).
BIND_TCP = 1 << 0
CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

NETWORK_ABI = 4
SCOPE_ABI = 6


def handled_fs(abi: int) -> int:
    """Every file-system right the kernel of this ABI knows (all of them handled: what a rule does not
    grant is denied)."""
    if abi < 1:
        return 0
    rights = FS_ABI_1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def handled_net(abi: int) -> int:
    return BIND_TCP | CONNECT_TCP if abi >= NETWORK_ABI else 0


def handled_scope(abi: int) -> int:
    return SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= SCOPE_ABI else 0


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # __attribute__((packed)) in the uapi header: 12 bytes
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPortAttr(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long
_prctl = _libc.prctl
_prctl.restype = ctypes.c_int
_capset = _libc.capset
_capset.restype = ctypes.c_int
_RULE_PATH_BENEATH_ARG = ctypes.c_int(RULE_PATH_BENEATH)
_NO_FLAGS = ctypes.c_uint32(0)


class LandlockError(OSError):
    pass


def _check(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise LandlockError(errno, f"{what}: {os.strerror(errno)}")
    return result


def kernel_abi() -> int:
    """The Landlock ABI this kernel offers: 0 when it has none (too old, not built in, not in the LSM list,
    or the call is refused by a seccomp filter)."""
    if platform.system() != "Linux" or platform.machine() not in SUPPORTED_MACHINES:
        return 0
    found = _syscall(
        SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION)
    )
    return max(0, int(found))


def abi() -> int:
    """The ABI the sandbox uses: the kernel's, lowered by ASSAY_LANDLOCK_ABI_MAX when a test sets it."""
    found = kernel_abi()
    cap = os.environ.get(ABI_CAP_ENV, "").strip()
    if cap:
        try:
            found = min(found, max(0, int(cap)))
        except ValueError:
            raise ValueError(f"{ABI_CAP_ENV} must be a whole number, not {cap!r}") from None
    return found


class Ruleset:
    """One cell's ruleset: made in the runner, applied in the agent's child (`confine`), closed after."""

    def __init__(self, abi: int, *, network: bool, scoped: bool) -> None:
        self.abi = abi
        self.fs_rights = handled_fs(abi)
        self.net_rights = handled_net(abi) if network else 0
        self.scopes = handled_scope(abi) if scoped else 0
        attr = _RulesetAttr(self.fs_rights, self.net_rights, self.scopes)
        self.fd = _check(
            _syscall(
                SYS_LANDLOCK_CREATE_RULESET,
                ctypes.byref(attr),
                ctypes.c_size_t(ctypes.sizeof(attr)),
                ctypes.c_uint32(0),
            ),
            "landlock_create_ruleset",
        )
        self._fd_arg = ctypes.c_int(self.fd)
        # Built ahead for the child: it only fills in the fd and calls.
        self._own_proc = _PathBeneathAttr(self.fs_rights & (EXECUTE | READ_FILE | READ_DIR), -1)

    def allow_path(self, path: str, rights: int) -> None:
        """Allow `rights` (masked to what this ABI handles, and to a file's rights on a file) beneath
        `path`. A path that does not exist is skipped: there is nothing there to reach."""
        rule = open_rule(path, rights, self.fs_rights)
        if rule is None:
            return
        try:
            self.add(rule, path)
        finally:
            os.close(rule.parent_fd)

    def add(self, rule: _PathBeneathAttr, path: str) -> None:
        """Add a rule made by `open_rule` (its descriptor stays the caller's to close)."""
        _check(
            _syscall(
                SYS_LANDLOCK_ADD_RULE, self._fd_arg, _RULE_PATH_BENEATH_ARG, ctypes.byref(rule), _NO_FLAGS
            ),
            f"landlock_add_rule {path}",
        )

    def allow_connect(self, port: int) -> None:
        if not self.net_rights:
            return
        attr = _NetPortAttr(CONNECT_TCP, port)
        _check(
            _syscall(
                SYS_LANDLOCK_ADD_RULE,
                ctypes.c_int(self.fd),
                ctypes.c_int(RULE_NET_PORT),
                ctypes.byref(attr),
                ctypes.c_uint32(0),
            ),
            f"landlock_add_rule tcp connect {port}",
        )

    def confine(self, seccomp: ctypes.Structure | None = None) -> Confinement:
        """The last steps, in the agent's process before exec: its own /proc/<pid> readable, no new
        privileges, the `seccomp` filter program if given, then the ruleset enforced on it and all it
        starts. Done by the launcher (`assay_runner.sandbox.launcher`), or, without it, by calling the
        result in a forked child (subprocess's preexec_fn). Any failure stops the agent from starting: a
        cell never runs less confined than recorded."""
        return Confinement(self, seccomp)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class Confinement:
    """A cell's last confinement steps (`Ruleset.confine`), for either way of doing them: what the launcher
    is given (`ruleset_fd`, `proc_rights`, `seccomp`), or, called, the same steps in a forked child. The
    ruleset's descriptor must stay open until the agent started."""

    def __init__(self, ruleset: Ruleset, seccomp: ctypes.Structure | None) -> None:
        self.ruleset_fd = ruleset.fd
        self.seccomp = seccomp
        attr = ruleset._own_proc
        self.proc_rights = int(attr.allowed_access)
        self._in_child = _in_child(ruleset._fd_arg, attr, seccomp)

    def __call__(self) -> None:
        self._in_child()


def _in_child(
    ruleset: ctypes.c_int, attr: _PathBeneathAttr, seccomp: ctypes.Structure | None
) -> Callable[[], None]:
    """The steps for a forked child. Nothing there imports or formats, and every ctypes argument is made
    ahead: the child copies each page it writes."""
    own_proc = ctypes.byref(attr)
    program = ctypes.byref(seccomp) if seccomp is not None else None
    syscall, prctl, path_flags = _syscall, _prctl, os.O_PATH | os.O_CLOEXEC
    capset, header, none = _capset, (ctypes.c_uint32 * 2)(CAPABILITY_VERSION_3, 0), (ctypes.c_uint32 * 6)()
    capabilities = range(64)

    def drop_capabilities() -> None:
        # The bounding set while this process may (a runner without CAP_SETPCAP has nothing to drop), the
        # ambient set, then effective, permitted and inheritable: with no_new_privs, exec gives none back.
        for cap in capabilities:
            if prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0 or prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                break
        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)  # EINVAL before Linux 4.3: none then
        _check(capset(header, none), "capset")

    def in_child() -> None:
        # /proc/self leads to the child's own /proc/<pid> (the rule is on the directory it opens).
        attr.parent_fd = os.open("/proc/self", path_flags)
        _check(
            syscall(SYS_LANDLOCK_ADD_RULE, ruleset, _RULE_PATH_BENEATH_ARG, own_proc, _NO_FLAGS),
            "landlock_add_rule /proc/<pid>",
        )
        os.close(attr.parent_fd)
        drop_capabilities()
        _check(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl PR_SET_NO_NEW_PRIVS")
        if program is not None:
            _check(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, program, 0, 0), "prctl PR_SET_SECCOMP")
        _check(syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, _NO_FLAGS), "landlock_restrict_self")

    return in_child


def open_rule(path: str, rights: int, handled: int) -> _PathBeneathAttr | None:
    """A rule allowing `rights` beneath `path` (masked to the `handled` rights, and to a file's rights on a
    file), on an O_PATH descriptor of it that the caller closes. None: nothing is there to reach."""
    opened = _open_rule(path, rights, handled)
    return opened[0] if opened is not None else None


def _open_rule(path: str, rights: int, handled: int) -> tuple[_PathBeneathAttr, tuple[int, int]] | None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        found = os.fstat(fd)
    except BaseException:
        os.close(fd)
        raise
    rights &= handled
    if not stat.S_ISDIR(found.st_mode):
        rights &= FILE_RIGHTS
    return _PathBeneathAttr(rights, fd), (found.st_dev, found.st_ino)


class OpenedPaths:
    """Path rules kept open and added to any number of rulesets of one ABI (`rule`): every cell of a run is
    granted the same system folders and toolchain, so each cell's ruleset adds them from descriptors
    already open. Each use checks (one stat) that the path still names the file the descriptor holds, and
    opens it again if not: a cell's rule is on what the path names when the cell starts, as if opened for
    it. `close` closes them all."""

    def __init__(self, abi: int) -> None:
        self.handled = handled_fs(abi)
        self._rules: dict[tuple[str, int], tuple[_PathBeneathAttr, tuple[int, int]]] = {}

    def rule(self, path: str, rights: int) -> _PathBeneathAttr | None:
        key = (path, rights)
        kept = self._rules.get(key)
        if kept is not None:
            try:
                found = os.stat(path)
            except OSError:
                found = None
            if found is not None and (found.st_dev, found.st_ino) == kept[1]:
                return kept[0]
            del self._rules[key]
            os.close(kept[0].parent_fd)
        opened = _open_rule(path, rights, self.handled)
        if opened is None:
            return None
        self._rules[key] = opened
        return opened[0]

    def close(self) -> None:
        rules, self._rules = self._rules, {}
        for rule, _ in rules.values():
            os.close(rule.parent_fd)
