"""No Unix socket of its own for a cell's agent: a seccomp filter refuses socket(AF_UNIX, ...).

Landlock (up to ABI 7) checks no right when a process connects to a pathname Unix socket: whatever the
grants, a sandboxed agent could connect to any socket whose path it knows and whose file mode lets it in —
the gateway sidecar's (which adds the runner's key to what it relays), another service's. The filter closes
that: the agent cannot create an AF_UNIX socket, so it cannot connect to one. socketpair(2) (what runtimes
use for their children's pipes: Node's, Python's asyncio) stays allowed: its two ends reach nothing else.
io_uring is refused too (io_uring_setup, _enter, _register): its IORING_OP_SOCKET (Linux 5.19+) makes a
socket with no socket(2) call for the filter to see, and a sandboxed agent connected to a pathname socket
that way (measured on Linux 6.18). Runtimes fall back to plain system calls without it (Docker's and
containerd's default profiles refuse it as well). A syscall of another architecture (i386 or x32 on
x86_64) is refused outright.

A classic BPF program, built once, installed by prctl(PR_SET_SECCOMP) in the agent's process after
PR_SET_NO_NEW_PRIVS (`landlock.Ruleset.confine`): by the launcher, which is given it in hex (`as_hex`), or
by the forked child.
"""

from __future__ import annotations

import ctypes
import errno
import platform

SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
AF_UNIX = 1
X32_SYSCALL_BIT = 0x40000000
# (audit architecture, socket's syscall number), by machine.
NATIVE = {"x86_64": (0xC000003E, 41), "aarch64": (0xC00000B7, 198), "arm64": (0xC00000B7, 198)}
IO_URING = (425, 426, 427)
"""io_uring_setup, io_uring_enter, io_uring_register: the same numbers on both machines."""
# struct seccomp_data: nr (u32 at 0), arch (u32 at 4), instruction_pointer (u64 at 8), args[6] (u64 at 16):
# the low half of args[0] is at 16 on these little-endian machines.
NR, ARCH, ARG0_LOW = 0, 4, 16
LD_W_ABS, JEQ_K, JGE_K, RET_K = 0x20, 0x15, 0x35, 0x06


class _Filter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Filter))]


def no_unix_sockets() -> _Program | None:
    """The filter for this machine (None: not one of the machines it is written for)."""
    native = NATIVE.get(platform.machine())
    if native is None:
        return None
    arch, socket_nr = native
    refuse = SECCOMP_RET_ERRNO | errno.EACCES
    setup, enter, register = IO_URING
    steps = [
        (LD_W_ABS, 0, 0, ARCH),
        (JEQ_K, 0, 9, arch),  # another architecture: refused (11)
        (LD_W_ABS, 0, 0, NR),
        (JGE_K, 7, 0, X32_SYSCALL_BIT),  # an x32 syscall: refused (11)
        (JEQ_K, 6, 0, setup),  # io_uring: refused (11)
        (JEQ_K, 5, 0, enter),
        (JEQ_K, 4, 0, register),
        (JEQ_K, 0, 2, socket_nr),  # not socket(2): allowed (10)
        (LD_W_ABS, 0, 0, ARG0_LOW),
        (JEQ_K, 1, 0, AF_UNIX),  # socket(AF_UNIX, ...): refused (11), else allowed (10)
        (RET_K, 0, 0, SECCOMP_RET_ALLOW),
        (RET_K, 0, 0, refuse),
    ]
    filters = (_Filter * len(steps))(*(_Filter(*step) for step in steps))
    program = _Program(len(steps), filters)
    program._keep = filters  # the array lives as long as the program
    return program


def as_hex(program: ctypes.Structure) -> str:
    """The program's instructions as the launcher takes them (`launcher.c`): struct sock_filter's bytes,
    in hex."""
    return ctypes.string_at(program.filter, program.len * ctypes.sizeof(_Filter)).hex()


PROGRAM = no_unix_sockets()
"""Built once at import: the child only passes its address to prctl."""
