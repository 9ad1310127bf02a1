// The UDP link endpoint (sim/src/udp_port.*) on its own, over 127.0.0.1:
// frames both ways byte for byte and in order; every datagram that is not
// a frame from the peer (empty, short, too long, from another port, from
// another address with the peer's port) dropped into its own counter while
// the frames around it still arrive; the kernel's queue overflowing counted
// exactly; a port in use and bad host:port strings refused with a message;
// send errors counted and reported once. Ports are the kernel's choice, so
// parallel runs do not collide; waits are poll() with a deadline.
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "rnic_check.h"
#include "udp_port.h"

namespace {

constexpr int kWaitMs = 5000;

sockaddr_in addr(const char *ip, uint16_t port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    inet_pton(AF_INET, ip, &a.sin_addr);
    return a;
}

// A plain UDP socket bound to ip:port (0: the kernel picks), or -1.
int plain_socket(const char *ip, uint16_t port) {
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    const sockaddr_in a = addr(ip, port);
    if (bind(fd, reinterpret_cast<const sockaddr *>(&a), sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

uint16_t port_of(int fd) {
    sockaddr_in a{};
    socklen_t len = sizeof(a);
    getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
    return ntohs(a.sin_port);
}

bool send_from(int fd, const sockaddr_in &to, const std::vector<uint8_t> &bytes) {
    return sendto(fd, bytes.data(), bytes.size(), 0, reinterpret_cast<const sockaddr *>(&to), sizeof(to)) ==
           static_cast<ssize_t>(bytes.size());
}

// Distinct contents for every (tag, length): a frame delivered in the wrong
// place, truncated or padded does not compare equal.
std::vector<uint8_t> frame(uint32_t tag, size_t len) {
    std::vector<uint8_t> f(len);
    for (size_t i = 0; i < len; ++i)
        f[i] = static_cast<uint8_t>(tag * 167u + i * 31u + (i >> 8) * 7u + len);
    if (len >= 8)   // the tag in clear too, for the flood's order check
        std::memcpy(f.data() + 4, &tag, sizeof(tag));
    return f;
}

uint32_t tag_of(const std::vector<uint8_t> &f) {
    uint32_t tag = 0;
    if (f.size() >= 8)
        std::memcpy(&tag, f.data() + 4, sizeof(tag));
    return tag;
}

// Calls `step` until it returns true, waiting in poll() on `fd` between
// calls; false once kWaitMs have passed.
bool wait_until(int fd, const std::function<bool()> &step) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kWaitMs);
    for (;;) {
        if (step())
            return true;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0)
            return false;
        pollfd pfd{fd, POLLIN, 0};
        poll(&pfd, 1, static_cast<int>(left) + 1);
    }
}

// Receives on `p` until `done()` holds.
bool pump(UdpPort &p, const std::function<void(std::vector<uint8_t> &&)> &deliver, const std::function<bool()> &done) {
    return wait_until(p.fd(), [&] {
        p.receive(deliver);
        return done();
    });
}

bool collect(UdpPort &p, std::vector<std::vector<uint8_t>> &got, size_t n) {
    return pump(p, [&](std::vector<uint8_t> &&f) { got.push_back(std::move(f)); }, [&] { return got.size() >= n; });
}

// Two ports facing each other. b binds port 0 (the kernel's choice, told by
// local()); a's port is learnt from a probe socket first, so a parallel run
// can only take it in the moment between probe and bind: then try again.
bool open_pair(std::unique_ptr<UdpPort> &a, std::unique_ptr<UdpPort> &b) {
    for (int attempt = 0; attempt < 20; ++attempt) {
        const int probe = plain_socket("127.0.0.1", 0);
        if (probe < 0)
            return false;
        const uint16_t pa = port_of(probe);
        close(probe);
        std::string err;
        b = UdpPort::open(addr("127.0.0.1", 0), addr("127.0.0.1", pa), &err);
        if (!b) {
            std::fprintf(stderr, "open b: %s\n", err.c_str());
            return false;
        }
        a = UdpPort::open(addr("127.0.0.1", pa), b->local(), &err);
        if (a)
            return true;
        std::fprintf(stderr, "open a (retrying): %s\n", err.c_str());
    }
    return false;
}

// Packets the kernel dropped in its per-CPU input backlog, system-wide
// (column 2 of /proc/net/softnet_stat, hex): lost before any socket saw
// them, so no socket counts them. 0 when the file is not there.
unsigned long long backlog_drops() {
    std::ifstream in("/proc/net/softnet_stat");
    unsigned long long total = 0;
    std::string processed, dropped, rest;
    while (in >> processed >> dropped && std::getline(in, rest))
        total += std::stoull(dropped, nullptr, 16);
    return total;
}

long read_long(const char *path) {
    std::ifstream in(path);
    long v = -1;
    in >> v;
    return in ? v : -1;
}

void test_parse() {
    sockaddr_in a = addr("9.9.9.9", 9);
    std::string err;
    CHECK(UdpPort::parse_address("127.0.0.1:5000", &a, &err));
    CHECK(a.sin_family == AF_INET && a.sin_addr.s_addr == htonl(0x7f000001) && ntohs(a.sin_port) == 5000);
    CHECK(UdpPort::format_address(a) == "127.0.0.1:5000");
    a = addr("9.9.9.9", 9);
    CHECK(UdpPort::parse_address("localhost:5000", &a, &err));
    CHECK(a.sin_family == AF_INET && (ntohl(a.sin_addr.s_addr) >> 24) == 127 && ntohs(a.sin_port) == 5000);
    CHECK(UdpPort::parse_address("10.1.2.3:65535", &a, nullptr));
    CHECK(UdpPort::format_address(a) == "10.1.2.3:65535");
    CHECK(UdpPort::parse_address("10.1.2.3:1", &a, nullptr) && ntohs(a.sin_port) == 1);

    const char *bad[] = {"127.0.0.1", "127.0.0.1:0", "127.0.0.1:70000", "no.such.host.invalid:5",
                         "127.0.0.1:", ":5000", "127.0.0.1:50x", "127.0.0.1:-1", "127.0.0.1: 5",
                         "127.0.0.1:99999999999999999999999", "", "[::1]:5000", "127.0.0.256:5",
                         "127.0.0.1:18446744073709556616"};   // 2^64 + 5000: a wrapping parser reads 5000
    for (const char *text : bad) {
        a = addr("9.9.9.9", 9);
        err.clear();
        const bool ok = UdpPort::parse_address(text, &a, &err);
        CHECK(!ok);
        CHECK(!err.empty() && err.find('\n') == std::string::npos);
        CHECK(UdpPort::format_address(a) == "9.9.9.9:9");   // left unchanged
        if (ok || err.empty())
            std::fprintf(stderr, "  accepted or unexplained: \"%s\"\n", text);
    }
    CHECK(!UdpPort::parse_address("127.0.0.1", &a, nullptr));   // no error string wanted: no crash
    err.clear();
    UdpPort::parse_address("no.such.host.invalid:5", &a, &err);
    CHECK(err.find("no.such.host.invalid") != std::string::npos);
}

// Frames of every size that matters, both ways at once, compared byte for byte.
void test_exchange(UdpPort &a, UdpPort &b) {
    const size_t sizes[] = {14, 60, 1500, 9000, 16384};
    for (size_t i = 0; i < 5; ++i) {
        const auto fa = frame(100 + static_cast<uint32_t>(i), sizes[i]);
        const auto fb = frame(200 + static_cast<uint32_t>(i), sizes[i]);
        a.send(fa.data(), fa.size());
        b.send(fb.data(), fb.size());
    }
    std::vector<std::vector<uint8_t>> at_a, at_b;
    CHECK(collect(b, at_b, 5));
    CHECK(collect(a, at_a, 5));
    CHECK(at_a.size() == 5 && at_b.size() == 5);
    for (size_t i = 0; i < 5 && i < at_a.size() && i < at_b.size(); ++i) {
        CHECK(at_b[i] == frame(100 + static_cast<uint32_t>(i), sizes[i]));
        CHECK(at_a[i] == frame(200 + static_cast<uint32_t>(i), sizes[i]));
    }
    CHECK(a.receive([](std::vector<uint8_t> &&) {}) == 0);
    CHECK(b.receive([](std::vector<uint8_t> &&) {}) == 0);
    for (UdpPort *p : {&a, &b}) {
        const UdpPort::Stats s = p->stats();
        CHECK(s.sent == 5 && s.send_errors == 0);
        CHECK(s.received == 5 && s.delivered == 5);
        CHECK(s.runts == 0 && s.oversize == 0 && s.strangers == 0 && s.kernel_drops == 0);
    }
}

// `max` bounds one call; what is left stays queued for the next.
void test_max(UdpPort &a, UdpPort &b) {
    for (uint32_t t = 300; t < 303; ++t)
        a.send(frame(t, 64).data(), 64);
    std::vector<std::vector<uint8_t>> got;
    size_t most = 0;
    const bool done = wait_until(b.fd(), [&] {
        const size_t n = b.receive([&](std::vector<uint8_t> &&f) { got.push_back(std::move(f)); }, 1);
        most = std::max(most, n);
        return got.size() >= 3;
    });
    CHECK(done && got.size() == 3 && most == 1);
    for (size_t i = 0; i < got.size(); ++i)
        CHECK(got[i] == frame(300 + static_cast<uint32_t>(i), 64));
    CHECK(b.receive([](std::vector<uint8_t> &&) {}, 0) == 0);
}

// Garbage from the peer's own address and from strangers, between good frames.
void test_bad_input(UdpPort &a, UdpPort &b) {
    const int stranger = plain_socket("127.0.0.1", 0);
    // Same port as the peer, other address: the address alone must be checked too.
    const int imposter = plain_socket("127.0.0.2", ntohs(a.local().sin_port));
    CHECK(stranger >= 0 && imposter >= 0);
    const UdpPort::Stats before = b.stats();
    const sockaddr_in to_b = b.local();
    const std::vector<uint8_t> empty, five(5, 0xAB), thirteen(13, 0xCD), huge(20000, 0xEF), just_over(16385, 0x11);

    a.send(frame(400, 60).data(), 60);
    a.send(empty.data(), 0);                               // runt
    CHECK(send_from(stranger, to_b, frame(401, 60)));     // stranger, though a good frame
    a.send(five.data(), five.size());                      // runt
    a.send(frame(402, 1500).data(), 1500);
    a.send(huge.data(), huge.size());                      // oversize
    CHECK(send_from(stranger, to_b, empty));              // stranger
    CHECK(send_from(stranger, to_b, five));               // stranger
    CHECK(send_from(stranger, to_b, huge));               // stranger
    CHECK(send_from(imposter, to_b, frame(403, 60)));     // stranger
    a.send(thirteen.data(), thirteen.size());              // runt: one byte short of a header
    a.send(just_over.data(), just_over.size());            // oversize: one byte past the limit
    a.send(frame(404, 14).data(), 14);
    a.send(frame(405, 16384).data(), 16384);

    std::vector<std::vector<uint8_t>> got;
    CHECK(pump(b, [&](std::vector<uint8_t> &&f) { got.push_back(std::move(f)); },
                [&] { return b.stats().received - before.received >= 14; }));
    CHECK(b.receive([&](std::vector<uint8_t> &&f) { got.push_back(std::move(f)); }) == 0);
    CHECK(got.size() == 4);
    if (got.size() == 4) {
        CHECK(got[0] == frame(400, 60));
        CHECK(got[1] == frame(402, 1500));
        CHECK(got[2] == frame(404, 14));
        CHECK(got[3] == frame(405, 16384));
    }
    const UdpPort::Stats s = b.stats();
    CHECK(s.received - before.received == 14);
    CHECK(s.delivered - before.delivered == 4);
    CHECK(s.runts - before.runts == 3);
    CHECK(s.oversize - before.oversize == 2);
    CHECK(s.strangers - before.strangers == 5);
    CHECK(s.kernel_drops == before.kernel_drops);
    CHECK(s.received == s.delivered + s.runts + s.oversize + s.strangers);
    CHECK(a.stats().send_errors == 0);
    if (stranger >= 0)
        close(stranger);
    if (imposter >= 0)
        close(imposter);
}

// More than the receive queue holds, sent while nobody reads: every frame
// is either delivered, in order, or counted as a kernel drop. The kernel
// reports its count only with a datagram queued after the drops, so marker
// frames follow once the queue has been emptied.
void test_kernel_drops(UdpPort &a, UdpPort &b) {
    int rcvbuf = 0;
    socklen_t len = sizeof(rcvbuf);
    CHECK(getsockopt(b.fd(), SOL_SOCKET, SO_RCVBUF, &rcvbuf, &len) == 0 && rcvbuf > 0);
    const UdpPort::Stats a0 = a.stats(), b0 = b.stats();
    const unsigned long long backlog0 = backlog_drops();
    const size_t flood = static_cast<size_t>(rcvbuf) / UdpPort::kMaxFrameBytes * 2 + 64;
    for (size_t i = 0; i < flood; ++i)
        a.send(frame(1000 + static_cast<uint32_t>(i), UdpPort::kMaxFrameBytes).data(), UdpPort::kMaxFrameBytes);

    uint32_t last_tag = 0;
    bool in_order = true, contents_ok = true, marker_seen = false;
    const uint32_t marker = 0x4D4D4D4D;
    auto check = [&](std::vector<uint8_t> &&f) {
        const uint32_t t = tag_of(f);
        if (t == marker) {
            marker_seen = true;
            contents_ok &= f == frame(marker, 60);
            return;
        }
        in_order &= t > last_tag;
        last_tag = t;
        contents_ok &= f == frame(t, UdpPort::kMaxFrameBytes);
    };
    b.receive(check);
    // Frames still in the kernel's backlog may refill the queue: a marker
    // that is itself dropped is counted like any other, and the next one goes.
    for (int attempt = 0; attempt < 5 && !marker_seen; ++attempt) {
        a.send(frame(marker, 60).data(), 60);
        pump(b, check, [&] { return marker_seen; });
    }
    const UdpPort::Stats a1 = a.stats(), b1 = b.stats();
    const uint64_t sent = a1.sent - a0.sent;
    const uint64_t delivered = b1.delivered - b0.delivered, dropped = b1.kernel_drops - b0.kernel_drops;
    // Normally 0: loopback hands each datagram to the socket inside sendto().
    // Only on a loaded machine, where that work is deferred, can the backlog overflow.
    const unsigned long long elsewhere = backlog_drops() - backlog0;
    std::printf("flood: %zu frames into a %d-byte queue: %llu sent (%llu send errors), %llu delivered, "
                "%llu dropped at the socket, %llu in the backlog\n",
                flood, rcvbuf, static_cast<unsigned long long>(sent),
                static_cast<unsigned long long>(a1.send_errors - a0.send_errors),
                static_cast<unsigned long long>(delivered), static_cast<unsigned long long>(dropped), elsewhere);
    CHECK(marker_seen);
    CHECK(in_order && contents_ok);
    CHECK(dropped > 0);
    CHECK(delivered + dropped <= sent && delivered + dropped + elsewhere >= sent);
    CHECK(b1.received - b0.received == delivered);
    CHECK(b.receive([](std::vector<uint8_t> &&) {}) == 0);
}

void test_open_errors(UdpPort &a, UdpPort &b) {
    std::string err;
    CHECK(!UdpPort::open(a.local(), b.local(), &err));
    // "in use" alone would also match strerror(EADDRINUSE): the hint is what says it was recognized.
    CHECK(err.find("in use") != std::string::npos && err.find("another process") != std::string::npos);
    CHECK(err.find(UdpPort::format_address(a.local())) != std::string::npos);
    CHECK(err.find('\n') == std::string::npos);
    CHECK(!UdpPort::open(a.local(), b.local(), nullptr));

    // Not an address of this host (TEST-NET-1): the system's reason, with the address.
    err.clear();
    CHECK(!UdpPort::open(addr("192.0.2.1", 4791), b.local(), &err));
    CHECK(err.find("192.0.2.1:4791") != std::string::npos && err.find("in use") == std::string::npos);
    CHECK(err.find(std::strerror(EADDRNOTAVAIL)) != std::string::npos);

    // A peer nothing can come from.
    err.clear();
    CHECK(!UdpPort::open(addr("127.0.0.1", 0), addr("127.0.0.1", 0), &err) && !err.empty());
    err.clear();
    CHECK(!UdpPort::open(addr("127.0.0.1", 0), addr("0.0.0.0", 5000), &err) && !err.empty());
}

// A frame the kernel refuses (larger than any UDP datagram) is counted; the
// first failure is reported on stderr, the others are not.
void test_send_errors(UdpPort &a) {
    const UdpPort::Stats before = a.stats();
    std::fflush(stderr);
    const int saved = dup(2);
    FILE *capture = std::tmpfile();
    CHECK(saved >= 0 && capture);
    if (saved < 0 || !capture)
        return;
    dup2(fileno(capture), 2);
    const std::vector<uint8_t> too_big(70000, 0);
    for (int i = 0; i < 3; ++i)
        a.send(too_big.data(), too_big.size());
    std::fflush(stderr);
    dup2(saved, 2);
    close(saved);
    std::string text;
    std::rewind(capture);
    for (int c; (c = std::fgetc(capture)) != EOF;)
        text += static_cast<char>(c);
    std::fclose(capture);
    const UdpPort::Stats s = a.stats();
    CHECK(s.send_errors - before.send_errors == 3);
    CHECK(s.sent == before.sent);
    size_t lines = 0;
    for (char c : text)
        lines += c == '\n';
    CHECK(lines == 1);
    CHECK(text.find(std::strerror(EMSGSIZE)) != std::string::npos);
    std::printf("captured from stderr, as expected: %s", text.c_str());
}

}  // namespace

int main() {
    test_parse();

    std::unique_ptr<UdpPort> a, b;
    CHECK(open_pair(a, b));
    if (!a || !b) {
        rnic_check_summary("test_udp_port_unit: no ports");
        return 1;
    }

    // The socket as the fabric needs it: non-blocking, not inherited, bound
    // where asked, with the large queue and the drop counter.
    for (UdpPort *p : {a.get(), b.get()}) {
        CHECK(p->fd() >= 0);
        CHECK(fcntl(p->fd(), F_GETFL) & O_NONBLOCK);
        CHECK(fcntl(p->fd(), F_GETFD) & FD_CLOEXEC);
        int v = 0;
        socklen_t len = sizeof(v);
        CHECK(getsockopt(p->fd(), SOL_SOCKET, SO_RXQ_OVFL, &v, &len) == 0 && v == 1);
        // At least what the plain option gets (the kernel doubles it for its
        // bookkeeping); FORCE, with the privilege, gets the full 16 MiB.
        const long rmem_max = read_long("/proc/sys/net/core/rmem_max");
        len = sizeof(v);
        CHECK(getsockopt(p->fd(), SOL_SOCKET, SO_RCVBUF, &v, &len) == 0);
        if (rmem_max > 0)
            CHECK(v >= 2 * std::min(rmem_max, 16L << 20));
    }
    CHECK(ntohs(b->local().sin_port) != 0 && b->local().sin_addr.s_addr == htonl(0x7f000001));
    CHECK(UdpPort::format_address(a->peer()) == UdpPort::format_address(b->local()));
    CHECK(UdpPort::format_address(b->peer()) == UdpPort::format_address(a->local()));

    test_exchange(*a, *b);
    test_max(*a, *b);
    test_bad_input(*a, *b);
    // Before the flood: the first send error of a port is the one reported.
    test_send_errors(*a);
    // Twice: the kernel's count is a running total, and only what it grew
    // by since the last report is new.
    test_kernel_drops(*a, *b);
    test_kernel_drops(*a, *b);
    test_open_errors(*a, *b);

    // The destructor lets the port go: it can be bound again at once.
    const sockaddr_in a_local = a->local(), b_local = b->local();
    const int a_fd = a->fd();
    a.reset();
    CHECK(fcntl(a_fd, F_GETFD) == -1 && errno == EBADF);
    std::string err;
    a = UdpPort::open(a_local, b_local, &err);
    CHECK(a != nullptr);

    return rnic_check_summary("test_udp_port_unit");
}
