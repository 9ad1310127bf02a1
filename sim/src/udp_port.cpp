#include "udp_port.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace {

// As much queue as the kernel allows: the simulation reads only between
// cycles, and a burst from a fast peer (a VM) must wait in the kernel
// meanwhile. 16 MiB holds a thousand jumbo frames.
constexpr int kWantedRcvBuf = 16 << 20;

void set_error(std::string *error, std::string text) {
    if (error)
        *error = std::move(text);
}

// Only address and port take part in binding, sending and the peer check;
// whatever the caller left in the family or padding must not matter.
sockaddr_in normalized(const sockaddr_in &a) {
    sockaddr_in n{};
    n.sin_family = AF_INET;
    n.sin_addr = a.sin_addr;
    n.sin_port = a.sin_port;
    return n;
}

bool same_endpoint(const sockaddr_in &a, const sockaddr_in &b) {
    return a.sin_addr.s_addr == b.sin_addr.s_addr && a.sin_port == b.sin_port;
}

}  // namespace

std::string UdpPort::format_address(const sockaddr_in &addr) {
    char ip[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &addr.sin_addr, ip, sizeof(ip));
    return std::string(ip) + ":" + std::to_string(ntohs(addr.sin_port));
}

bool UdpPort::parse_address(const std::string &text, sockaddr_in *out, std::string *error) {
    const std::string quoted = "link address \"" + text + "\"";
    // The last colon: a port never contains one, so a stray colon in the
    // host part ends up in the host lookup, which refuses it.
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos) {
        set_error(error, quoted + " has no port (expected host:port)");
        return false;
    }
    const std::string host = text.substr(0, colon), port_text = text.substr(colon + 1);
    if (host.empty()) {
        set_error(error, quoted + " has no host (expected host:port)");
        return false;
    }
    // Digits only: strtoul would take a sign, blanks and a trailing suffix.
    unsigned long port = 0;
    bool digits = !port_text.empty();
    for (char c : port_text) {
        if (c < '0' || c > '9') {
            digits = false;
            break;
        }
        if (port <= 65535)   // stop growing once out of range: no overflow on long strings
            port = port * 10 + static_cast<unsigned long>(c - '0');
    }
    if (!digits) {
        set_error(error, quoted + ": the port \"" + port_text + "\" is not a number");
        return false;
    }
    if (port < 1 || port > 65535) {
        set_error(error, quoted + ": the port must be 1 to 65535");
        return false;
    }

    sockaddr_in result{};
    result.sin_family = AF_INET;
    result.sin_port = htons(static_cast<uint16_t>(port));
    // A dotted quad is taken as it is, without asking the resolver.
    if (inet_pton(AF_INET, host.c_str(), &result.sin_addr) != 1) {
        addrinfo hints{};
        hints.ai_family = AF_INET;   // the encapsulation is IPv4 only, as QEMU's inet dgram
        hints.ai_socktype = SOCK_DGRAM;
        addrinfo *found = nullptr;
        const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
        if (rc != 0 || !found || found->ai_family != AF_INET || found->ai_addrlen < sizeof(sockaddr_in)) {
            set_error(error, quoted + ": unknown host \"" + host + "\" (" +
                                 (rc != 0 ? gai_strerror(rc) : "no IPv4 address") + ")");
            if (found)
                freeaddrinfo(found);
            return false;
        }
        sockaddr_in resolved;
        std::memcpy(&resolved, found->ai_addr, sizeof(resolved));
        result.sin_addr = resolved.sin_addr;
        freeaddrinfo(found);
    }
    *out = result;
    return true;
}

std::unique_ptr<UdpPort> UdpPort::open(const sockaddr_in &local_in, const sockaddr_in &peer_in, std::string *error) {
    const sockaddr_in local = normalized(local_in), peer = normalized(peer_in);
    const std::string where = "link port " + format_address(local);
    // Nothing ever comes from port 0 or the wildcard address: every frame
    // would be dropped as a stranger's, so refuse the set-up instead.
    if (peer.sin_port == 0 || peer.sin_addr.s_addr == htonl(INADDR_ANY)) {
        set_error(error, where + ": the peer " + format_address(peer) + " is not an address to send to");
        return nullptr;
    }
    // Non-blocking: the clock thread must never wait on the network.
    // Close-on-exec: a child (a test spawning a VM, say) must not keep the
    // port bound after this process has let it go.
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        set_error(error, where + ": cannot create a UDP socket: " + std::strerror(errno));
        return nullptr;
    }
    // FORCE passes rmem_max but needs CAP_NET_ADMIN; without it the plain
    // option is clamped to rmem_max. A small queue costs dropped frames
    // (counted), not the link, so neither failure is an error.
    const int want = kWantedRcvBuf;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want)) != 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
    // The kernel then tells, with each datagram, how many it has dropped so
    // far: the only trace a full queue leaves. Without it they go uncounted.
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof(on));

    if (bind(fd, reinterpret_cast<const sockaddr *>(&local), sizeof(local)) != 0) {
        const int e = errno;
        close(fd);
        if (e == EADDRINUSE)
            set_error(error, where + " is in use (another process has this NIC open?)");
        else
            set_error(error, where + ": " + std::strerror(e));
        return nullptr;
    }
    // The port actually bound, when the caller left the choice to the kernel.
    sockaddr_in bound = local;
    socklen_t len = sizeof(bound);
    if (getsockname(fd, reinterpret_cast<sockaddr *>(&bound), &len) != 0 || len != sizeof(bound))
        bound = local;
    return std::unique_ptr<UdpPort>(new UdpPort(fd, normalized(bound), peer));
}

UdpPort::UdpPort(int fd, const sockaddr_in &local, const sockaddr_in &peer)
    : fd_(fd), local_(local), peer_(peer), rx_buf_(kMaxFrameBytes) {}

UdpPort::~UdpPort() { close(fd_); }

void UdpPort::send(const uint8_t *frame, size_t len) {
    ssize_t n;
    do
        n = sendto(fd_, frame, len, MSG_DONTWAIT | MSG_NOSIGNAL, reinterpret_cast<const sockaddr *>(&peer_),
                   sizeof(peer_));
    while (n < 0 && errno == EINTR);
    if (n >= 0 && static_cast<size_t>(n) == len) {
        ++stats_.sent;
        return;
    }
    ++stats_.send_errors;
    // A peer that is down stays down for many frames: one line says so,
    // the counter says how often.
    if (!send_error_reported_) {
        send_error_reported_ = true;
        std::fprintf(stderr, "rnic_sim: link %s -> %s: send failed: %s (further send errors only counted)\n",
                     format_address(local_).c_str(), format_address(peer_).c_str(),
                     n < 0 ? std::strerror(errno) : "short send");
    }
}

size_t UdpPort::receive(const std::function<void(std::vector<uint8_t> &&frame)> &deliver, size_t max) {
    size_t delivered = 0;
    while (delivered < max) {
        sockaddr_in from{};
        iovec iov{rx_buf_.data(), rx_buf_.size()};
        union {
            cmsghdr align;
            char bytes[CMSG_SPACE(sizeof(uint32_t))];
        } control;
        msghdr msg{};
        msg.msg_name = &from;
        msg.msg_namelen = sizeof(from);
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.bytes;
        msg.msg_controllen = sizeof(control.bytes);
        const ssize_t n = recvmsg(fd_, &msg, MSG_DONTWAIT);
        if (n < 0) {
            // An ICMP error is reported once by the read that consumes it;
            // datagrams queued behind it are still to be read.
            if (errno == EINTR || errno == ECONNREFUSED || errno == EHOSTUNREACH || errno == ENETUNREACH)
                continue;
            break;   // EAGAIN: all read. Anything else: the next poll() says when to try again.
        }
        ++stats_.received;

        // The count is the socket's running total: what grew since the last
        // datagram that carried it was dropped in between. Unsigned
        // arithmetic keeps that right across the counter's wrap.
        for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL && c->cmsg_len >= CMSG_LEN(sizeof(uint32_t))) {
                uint32_t total;
                std::memcpy(&total, CMSG_DATA(c), sizeof(total));
                stats_.kernel_drops += static_cast<uint32_t>(total - ovfl_seen_);
                ovfl_seen_ = total;
            }
        }

        // Someone else's datagram is not judged further, whatever it holds.
        if (msg.msg_namelen < sizeof(from) || from.sin_family != AF_INET || !same_endpoint(from, peer_)) {
            ++stats_.strangers;
            continue;
        }
        // MSG_TRUNC: the datagram did not fit the buffer (the kernel
        // discarded the rest), so it is larger than any frame of ours.
        if (msg.msg_flags & MSG_TRUNC) {
            ++stats_.oversize;
            continue;
        }
        const size_t len = static_cast<size_t>(n);
        if (len < kMinFrameBytes) {
            ++stats_.runts;
            continue;
        }
        ++stats_.delivered;
        ++delivered;
        deliver(std::vector<uint8_t>(rx_buf_.begin(), rx_buf_.begin() + static_cast<std::ptrdiff_t>(len)));
    }
    return delivered;
}
