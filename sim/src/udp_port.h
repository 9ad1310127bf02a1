// One end of a link that leaves the process: Ethernet frames carried over
// UDP, one frame per datagram, with no header of its own and no FCS. That
// is the encapsulation of QEMU's `-netdev dgram` with inet addresses, so the
// far end may be another simulator process or a virtual machine's NIC.
//
// The socket is the only thing between the simulation and whatever else is
// on the host, so nothing that arrives is trusted: every datagram that is
// not a plausible frame from the configured peer is dropped and counted,
// never delivered and never able to crash the receiver. Sending never
// blocks and never fails loudly: a link whose far end is not up yet behaves
// like a cable with nothing plugged in, and the simulation goes on.
//
// No SystemC here: the fabric polls fd() and calls receive() between cycles.
#pragma once

#include <netinet/in.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

class UdpPort {
public:
    // A frame must at least hold the Ethernet header (two MACs, ethertype).
    static constexpr size_t kMinFrameBytes = 14;
    // Jumbo frames and then some; anything larger is not a frame of ours.
    static constexpr size_t kMaxFrameBytes = 16384;

    // Every datagram read is `received` and then lands in exactly one of
    // delivered, runts, oversize or strangers. kernel_drops are datagrams
    // the kernel discarded before we could read them (receive queue full).
    struct Stats {
        uint64_t sent = 0, send_errors = 0;
        uint64_t received = 0, delivered = 0;
        uint64_t runts = 0, oversize = 0, strangers = 0;
        uint64_t kernel_drops = 0;
    };

    // Binds `local` and will talk to `peer` only. Returns nullptr and a
    // one-line message naming the local address when the socket cannot be
    // had (`error` may be null).
    static std::unique_ptr<UdpPort> open(const sockaddr_in &local, const sockaddr_in &peer, std::string *error);

    // "host:port", host a dotted quad or a name with an IPv4 address.
    // Returns false and a one-line message (`error` may be null) when the
    // text is not that; `out` is then left unchanged.
    static bool parse_address(const std::string &text, sockaddr_in *out, std::string *error);
    // "a.b.c.d:port", for messages.
    static std::string format_address(const sockaddr_in &addr);

    ~UdpPort();
    UdpPort(const UdpPort &) = delete;
    UdpPort &operator=(const UdpPort &) = delete;

    int fd() const { return fd_; }
    // The address actually bound (its port is the kernel's choice when
    // `local` asked for port 0), and the only address listened to.
    const sockaddr_in &local() const { return local_; }
    const sockaddr_in &peer() const { return peer_; }

    void send(const uint8_t *frame, size_t len);
    // Reads what is waiting, without blocking, and hands each valid frame to
    // `deliver`, in arrival order, stopping once `max` have been delivered
    // (the rest stays queued in the kernel). Returns the number delivered.
    size_t receive(const std::function<void(std::vector<uint8_t> &&frame)> &deliver, size_t max = SIZE_MAX);

    Stats stats() const { return stats_; }

private:
    UdpPort(int fd, const sockaddr_in &local, const sockaddr_in &peer);

    int fd_;
    sockaddr_in local_, peer_;
    Stats stats_;
    uint32_t ovfl_seen_ = 0;            // the kernel's cumulative drop counter, last value seen
    bool send_error_reported_ = false;
    std::vector<uint8_t> rx_buf_;       // kMaxFrameBytes: a datagram that does not fit is oversize
};
