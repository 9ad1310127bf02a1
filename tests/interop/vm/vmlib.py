"""What the interop scripts share: building the VM's files, free UDP ports,
and a VM booted by boot-vm in the background with its console read line by
line (capture-rxe, pingpong-rnic)."""

import os
import re
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


# Busybox sh, for a guest's --cmd: `s NAME COMMAND...` starts a server
# (ibv_rc_pingpong, perftest) in the background, bounded by timeout, waits
# until TCP port 18515 listens, prints INTEROP-STEP-LISTEN NAME, waits for
# the server and prints INTEROP-STEP-END NAME rc=N; it fails when the
# server did. The kernel command line that carries it cannot quote a ", so
# "$@" is $@: no argument of these tools holds a space.
GUEST_SERVER_FN = ("s() { n=$1; shift; timeout 120 $@ & p=$!; i=0; "
                   "until netstat -ltn | grep -q ':18515 '; do "
                   "kill -0 $p 2>/dev/null || break; i=$((i+1)); [ $i -le 600 ] || break; sleep 0.1; done; "
                   "echo INTEROP-STEP-LISTEN $n; wait $p; r=$?; echo INTEROP-STEP-END $n rc=$r; [ $r = 0 ]; }; ")


# Busybox sh: `c NAME COMMAND...` waits for a line `go NAME` on the console
# (boot-vm --console-in: whoever drives the VM writes it once the server is
# listening), then runs the client, bounded by timeout, and prints
# INTEROP-STEP-GO NAME and INTEROP-STEP-END NAME rc=N; it fails when the
# client did or the line named another step.
GUEST_CLIENT_FN = ("c() { read -r g n; echo INTEROP-STEP-GO $n; [ $n = $1 ] || return 1; shift; "
                   "timeout 120 $@; r=$?; echo INTEROP-STEP-END $n rc=$r; [ $r = 0 ]; }; ")

# Busybox sh: `d` prints rxe's own counters (retries, sequence errors,
# duplicates) and eth0's drops, one INTEROP-COUNTER NAME VALUE a line: what
# explains a retransmission that no host socket dropped.
GUEST_COUNTERS_FN = ("d() { for f in /sys/class/infiniband/rxe0/ports/1/hw_counters/* "
                     "/sys/class/net/eth0/statistics/rx_dropped /sys/class/net/eth0/statistics/tx_dropped; do "
                     "echo INTEROP-COUNTER ${f##*/} $(cat $f); done; }; ")


def build_initramfs(build, who, extra_bins=()):
    """Runs build-initramfs BUILD, with the programs of this machine
    `extra_bins` in its /usr/bin: 0 when the kernel and initramfs are
    there; 77 after printing its SKIP: line (no packages, no mirror); 1
    after printing its output and a FAIL line naming `who`."""
    t0 = time.monotonic()
    extra = [a for p in extra_bins for a in ("--extra-bin", p)]
    r = subprocess.run([os.path.join(HERE, "build-initramfs")] + extra + [build],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode == 77:
        print(next((l for l in r.stdout.splitlines() if l.startswith("SKIP:")),
                   "SKIP: build-initramfs cannot get the packages"))
        return 77
    if r.returncode != 0:
        sys.stdout.write(r.stdout)
        print("%s: FAIL: build-initramfs exited %d" % (who, r.returncode))
        return 1
    print("%s: build-initramfs took %.1f s" % (who, time.monotonic() - t0), flush=True)
    return 0


def free_port(taken, kind=socket.SOCK_DGRAM):
    """A port of 127.0.0.1 nobody has bound (UDP, or TCP with SOCK_STREAM),
    not one of `taken`."""
    while True:
        s = socket.socket(socket.AF_INET, kind)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        if port not in taken:
            return port


def free_udp_port(taken):
    return free_port(taken)


def udp_sockets(ports):
    """{port: (bytes waiting in its receive queue, datagrams dropped on
    arrival)} for each UDP socket bound to 127.0.0.1:port, from the host
    kernel's table."""
    found = {}
    try:
        with open("/proc/net/udp") as f:
            next(f)
            for line in f:
                col = line.split()
                port = int(col[1].split(":")[1], 16)
                if port in ports:
                    found[port] = (int(col[4].split(":")[1], 16), int(col[-1]))
    except (OSError, ValueError, IndexError):
        pass
    return found


class Vm:
    """boot-vm in the background, its console read line by line."""

    def __init__(self, name, args, log_path, console_in):
        self.name = name
        self.lines = []
        self.cond = threading.Condition()
        self.log = open(log_path, "w")
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     stdin=subprocess.PIPE if console_in else subprocess.DEVNULL)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            line = raw.decode(errors="replace").replace("\r", "").rstrip("\n")
            line = re.sub(r"\x1b(\[[0-9;?]*[A-Za-z]|c)", "", line)   # terminal resets
            self.log.write("%7.2f %s\n" % (time.monotonic() - self.t0, line))
            self.log.flush()
            with self.cond:
                self.lines.append(line)
                self.cond.notify_all()
        with self.cond:
            self.lines.append(None)   # end of the console
            self.cond.notify_all()

    def wait_line(self, pattern, deadline):
        """The first console line matching pattern; None at the console's end
        or the deadline."""
        rx = re.compile(pattern)
        i = 0
        with self.cond:
            while True:
                while i < len(self.lines):
                    if self.lines[i] is None:
                        return None
                    if rx.search(self.lines[i]):
                        return self.lines[i]
                    i += 1
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(min(left, 1.0))

    def text(self):
        with self.cond:
            return "\n".join(l for l in self.lines if l is not None)

    def send(self, line):
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()
