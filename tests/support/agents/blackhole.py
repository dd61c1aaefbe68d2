"""A blackhole for every packet that tries to leave loopback, and a record of each one.

Run inside a fresh network namespace (and mount namespace) as root. The namespace gets one more interface,
a veth pair: its end `bh0` carries the default routes (IPv4 and IPv6) to a gateway whose link address is
pinned to the other end, `bh1`, which has no address. So every packet that does not go to loopback is sent,
at once, to `bh1` — where a raw socket records it and nothing ever answers. The resolver (`resolv.conf`,
bind-mounted over /etc/resolv.conf) points into the blackhole too, so a lookup is recorded with the name it
asked for.

What this proves: an attempt of any kind (a DNS lookup, a TCP or UDP connection, a ping, to an address or a
name, honouring proxy variables or not) is a packet that leaves loopback, and is recorded; and since nothing
answers, an attempt also costs the process a timeout (a delay) instead of failing fast. The kernel's own
link chatter (IPv6 router and neighbour solicitations, multicast reports) is not counted. No packet leaves
the namespace: the veth pair's both ends are inside it.
"""

from __future__ import annotations

import json
import socket
import struct
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

GATEWAY4 = "10.254.0.2"
GATEWAY6 = "fd00:254::2"
RESOLVER = "10.253.0.53"  # off bh0's own subnet: reached through the gateway, never by ARP
ETH_P_ALL = 0x0003
KERNEL_ICMP6 = {130, 131, 132, 133, 134, 135, 136, 143}  # MLD, router and neighbour discovery


@dataclass
class Attempt:
    at: float
    """Seconds since the blackhole opened."""
    protocol: str
    destination: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.at:7.2f}s {self.protocol} {self.destination} {self.detail}".rstrip()


def _ip(cmd: str) -> None:
    subprocess.run(["ip", *cmd.split()], check=True)


def _qname(payload: bytes) -> str:
    """The first question's name of a DNS query (the header is 12 bytes)."""
    labels, at = [], 12
    while at < len(payload) and payload[at] != 0:
        size = payload[at]
        labels.append(payload[at + 1 : at + 1 + size].decode("ascii", "replace"))
        at += 1 + size
    return ".".join(labels)


def describe(frame: bytes) -> tuple[str, str, str] | None:
    """(protocol, destination, detail) of an Ethernet frame, or None for the kernel's link chatter."""
    kind = struct.unpack("!H", frame[12:14])[0]
    packet = frame[14:]
    if kind == 0x0800:
        header = (packet[0] & 0x0F) * 4
        proto, destination = packet[9], socket.inet_ntop(socket.AF_INET, packet[16:20])
        body = packet[header:]
        if proto == 2:  # IGMP: the kernel's multicast reports
            return None
    elif kind == 0x86DD:
        proto, destination = packet[6], socket.inet_ntop(socket.AF_INET6, packet[24:40])
        body = packet[40:]
        if proto == 58 and body and body[0] in KERNEL_ICMP6:
            return None
        if proto == 0:  # hop-by-hop options: the MLD reports' header
            return None
    elif kind == 0x0806:
        return "arp", "", ""
    else:
        return f"ethertype-{kind:#06x}", "", ""
    if proto in (6, 17) and len(body) >= 4:
        port = struct.unpack("!H", body[2:4])[0]
        if proto == 17 and port == 53:
            return "dns", f"{destination}:53", _qname(body[8:])
        flags = body[13] if proto == 6 and len(body) > 13 else 0
        detail = "SYN" if flags & 0x02 and not flags & 0x10 else ""
        return ("tcp" if proto == 6 else "udp"), f"{destination}:{port}", detail
    return f"ip-proto-{proto}", destination, ""


@dataclass
class Blackhole:
    attempts: list[Attempt] = field(default_factory=list)
    _opened: float = 0.0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def open(self, resolv_conf: Path) -> None:
        """Make the interfaces and routes, point the resolver into the blackhole, start recording."""
        _ip("link add bh0 type veth peer name bh1")
        for name in ("bh0", "bh1"):
            subprocess.run(["sysctl", "-q", "-w", f"net.ipv6.conf.{name}.disable_ipv6=0"], check=False)
            _ip(f"link set {name} up")
        shown = subprocess.run(
            ["ip", "-j", "link", "show", "bh1"], check=True, capture_output=True, text=True
        )
        mac = json.loads(shown.stdout)[0]["address"]
        _ip("addr add 10.254.0.1/32 dev bh0")
        _ip(f"neigh replace {GATEWAY4} lladdr {mac} dev bh0 nud permanent")
        _ip(f"route add default via {GATEWAY4} dev bh0 onlink")
        _ip("-6 addr add fd00:254::1/128 dev bh0 nodad")
        _ip(f"-6 neigh replace {GATEWAY6} lladdr {mac} dev bh0 nud permanent")
        _ip(f"-6 route add default via {GATEWAY6} dev bh0 onlink")
        resolv_conf.write_text(f"nameserver {RESOLVER}\noptions timeout:2 attempts:1\n")
        subprocess.run(["mount", "--bind", str(resolv_conf), "/etc/resolv.conf"], check=True)
        sniffer = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        sniffer.bind(("bh1", 0))
        sniffer.settimeout(0.2)
        self._opened = time.monotonic()
        self._thread = threading.Thread(target=self._record, args=(sniffer,), daemon=True)
        self._thread.start()

    def _record(self, sniffer: socket.socket) -> None:
        with sniffer:
            while not self._stop.is_set():
                try:
                    frame = sniffer.recv(65536)
                except TimeoutError:
                    continue
                seen = describe(frame)
                if seen is not None:
                    self.attempts.append(Attempt(round(time.monotonic() - self._opened, 3), *seen))

    def close(self) -> list[Attempt]:
        time.sleep(0.3)  # a packet sent just before the end is still read
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        return self.attempts
