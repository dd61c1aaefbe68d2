"""No Unix socket of its own for a cell's agent: a seccomp filter refuses socket(AF_UNIX, ...).

Landlock (up to ABI 7) checks no right when a process connects to a pathname Unix socket: whatever the
grants, a sandboxed agent could connect to any socket whose path it knows and whose file mode lets it in —
the gateway sidecar's (which adds the runner's key to what it relays), another service's. The filter closes
that: the agent cannot create an AF_UNIX socket, so it cannot connect to one. A stream or seqpacket
socketpair(2) (what runtimes use for their children's pipes: Node's, Python's asyncio) stays allowed: its
two ends reach nothing else. A datagram pair is refused (socketpair(AF_UNIX, SOCK_DGRAM)): an end of one
may still sendto(2) any datagram socket at a path (measured), /dev/log's kind; stream and seqpacket pairs
ignore an address.
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
# (audit architecture, socket's and socketpair's syscall numbers), by machine.
NATIVE = {
    "x86_64": (0xC000003E, 41, 53),
    "aarch64": (0xC00000B7, 198, 199),
    "arm64": (0xC00000B7, 198, 199),
}
IO_URING = (425, 426, 427)
"""io_uring_setup, io_uring_enter, io_uring_register: the same numbers on both machines."""
# struct seccomp_data: nr (u32 at 0), arch (u32 at 4), instruction_pointer (u64 at 8), args[6] (u64 at 16):
# the low half of args[0] is at 16 on these little-endian machines.
NR, ARCH, ARG0_LOW, ARG1_LOW = 0, 4, 16, 24
LD_W_ABS, JEQ_K, JGE_K, RET_K, AND_K = 0x20, 0x15, 0x35, 0x06, 0x54
SOCK_DGRAM, SOCK_TYPE_MASK = 2, 0xF


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
    arch, socket_nr, pair_nr = native
    refuse = SECCOMP_RET_ERRNO | errno.EACCES
    setup, enter, register = IO_URING
    # Jumps are relative to the next instruction: 17 allows, 18 refuses.
    steps = [
        (LD_W_ABS, 0, 0, ARCH),  # 0
        (JEQ_K, 0, 16, arch),  # 1: another architecture: refused
        (LD_W_ABS, 0, 0, NR),  # 2
        (JGE_K, 14, 0, X32_SYSCALL_BIT),  # 3: an x32 syscall: refused
        (JEQ_K, 13, 0, setup),  # 4: io_uring: refused
        (JEQ_K, 12, 0, enter),  # 5
        (JEQ_K, 11, 0, register),  # 6
        (JEQ_K, 4, 0, pair_nr),  # 7: socketpair(2): its domain and type, at 12
        (JEQ_K, 0, 8, socket_nr),  # 8: neither: allowed
        (LD_W_ABS, 0, 0, ARG0_LOW),  # 9
        (JEQ_K, 7, 0, AF_UNIX),  # 10: socket(AF_UNIX, ...): refused
        (RET_K, 0, 0, SECCOMP_RET_ALLOW),  # 11: any other socket(2)
        (LD_W_ABS, 0, 0, ARG0_LOW),  # 12
        (JEQ_K, 0, 3, AF_UNIX),  # 13: a pair of another domain: allowed
        (LD_W_ABS, 0, 0, ARG1_LOW),  # 14
        (AND_K, 0, 0, SOCK_TYPE_MASK),  # 15: the type without SOCK_NONBLOCK and SOCK_CLOEXEC
        (JEQ_K, 1, 0, SOCK_DGRAM),  # 16: a Unix datagram pair: refused
        (RET_K, 0, 0, SECCOMP_RET_ALLOW),  # 17
        (RET_K, 0, 0, refuse),  # 18
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
