#!/bin/sh
# /init of the interop VM's initramfs (busybox sh).  build-initramfs copies
# this file in as /init.
#
# Parameters come from the kernel command line: an unknown name=value
# parameter without a dot is handed to init in its environment, and a value
# may be quoted ("...") to hold spaces.
#   INTEROP_IP        the guest's address on eth0    (default 10.0.0.2/24)
#   INTEROP_PEER      the peer's IPv4 address        (default 10.0.0.1)
#   INTEROP_PEER_MAC  the peer's MAC, a permanent neighbour entry
#                                                    (default 52:54:00:00:00:01)
#   INTEROP_MTU       eth0's MTU                     (default 1500)
#   INTEROP_PING      1: one busybox ping to the peer before READY (default 1)
#   INTEROP_CMD       a command run after INTEROP-VM-READY (optional)
#   INTEROP_OOB_IP    eth1's address, when boot-vm gave the VM a second NIC
#                     for TCP from the host (--oob-port; optional)
#
# Console markers, one a line, for whoever reads the serial console:
#   INTEROP-VM-READY         the rxe0 device is up (after ibv_devinfo -v)
#   INTEROP-VM-FAILED step   a setup step failed (READY is not printed)
#   INTEROP-VM-DONE rc=N     N: INTEROP_CMD's exit status (0 without one),
#                            or 1 after a failed setup step
# then the VM powers off.

export PATH=/sbin:/bin:/usr/sbin:/usr/bin
export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu
export HOME=/root

IP=${INTEROP_IP:-10.0.0.2/24}
PEER=${INTEROP_PEER:-10.0.0.1}
PEER_MAC=${INTEROP_PEER_MAC:-52:54:00:00:00:01}
PING=${INTEROP_PING:-1}
MTU=${INTEROP_MTU:-1500}

say() { echo "interop-vm: $*"; }

# Debian's busybox-static runs its own applets in preference to PATH (the
# ash "standalone" feature), so a bare `ip` would be busybox's, which has no
# `ip neigh replace ... nud permanent`: iproute2's ip is called by its path.
IPR=/bin/ip

finish() {
    echo "INTEROP-VM-DONE rc=$1"
    sync
    poweroff -f
    # poweroff -f does not return; if it did, init exiting panics the
    # kernel, and panic=-1 with QEMU's -no-reboot ends QEMU all the same.
    exit "$1"
}

fail() {
    echo "INTEROP-VM-FAILED $*"
    dmesg | tail -n 30
    finish 1
}

# step DESCRIPTION COMMAND...: run, echo the command, stop the VM on failure
step() {
    what=$1; shift
    echo "+ $*"
    "$@" || fail "$what"
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run

say "kernel $(uname -r), $(nproc) cpu, $(sed -n 's/MemTotal: *//p' /proc/meminfo) memory"
say "cmdline: $(cat /proc/cmdline)"

KVER=$(uname -r)
MODDIR=/lib/modules/$KVER
while read -r m; do
    insmod "$MODDIR/$m" || fail "insmod $m"
done < "$MODDIR/load-order"
say "modules: $(sed 's|.*/||; s|\.ko$||' "$MODDIR/load-order" | tr '\n' ' ')"

# virtio-net probes asynchronously: wait_netdev NAME waits for it (5 s at most)
wait_netdev() {
    i=0
    while [ ! -e "/sys/class/net/$1" ]; do
        i=$((i + 1))
        [ $i -le 50 ] || fail "no $1"
        sleep 0.1
    done
}
wait_netdev eth0

step "lo up" $IPR link set lo up
step "eth0 mtu" $IPR link set eth0 mtu "$MTU"
step "eth0 up" $IPR link set eth0 up
step "eth0 address" $IPR addr add "$IP" dev eth0
step "peer neighbour" $IPR neigh replace "$PEER" lladdr "$PEER_MAC" dev eth0 nud permanent
$IPR -br link show eth0
$IPR -br addr show eth0
$IPR neigh show dev eth0

if [ -n "$INTEROP_OOB_IP" ]; then
    wait_netdev eth1
    step "eth1 up" $IPR link set eth1 up
    step "eth1 address" $IPR addr add "$INTEROP_OOB_IP" dev eth1
    $IPR -br addr show eth1
fi

step "rdma link add" rdma link add rxe0 type rxe netdev eth0
rdma link show

# The port turns ACTIVE and the GID of eth0's IPv4 address appears shortly
# after the link is added: wait for both (5 s at most).
V4=${IP%%/*}
# shellcheck disable=SC2046  # split the dotted quad into $1..$4
set -- $(echo "$V4" | tr . ' ')
GID4=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$1" "$2" "$3" "$4")
port=/sys/class/infiniband/rxe0/ports/1
i=0
while :; do
    state=$(cat $port/state 2>/dev/null)
    if [ "${state#*ACTIVE}" != "$state" ] && grep -qx "$GID4" $port/gids/* 2>/dev/null; then
        break
    fi
    i=$((i + 1))
    [ $i -le 50 ] || { say "port state '$state'; GID of $V4 not there after 5 s"; break; }
    sleep 0.1
done

step "ibv_devices" ibv_devices
step "ibv_devinfo" ibv_devinfo -v -d rxe0

if [ "$PING" = 1 ]; then
    # One frame to the peer's MAC (the neighbour entry is permanent, so no
    # ARP first); whether an echo reply comes back depends on the peer.
    ping -c 1 -W 1 "$PEER"
    say "ping $PEER rc=$?"
fi

echo "INTEROP-VM-READY"

rc=0
if [ -n "$INTEROP_CMD" ]; then
    echo "+ $INTEROP_CMD"
    sh -c "$INTEROP_CMD"
    rc=$?
fi
finish $rc
