// A point-to-point link between two NIC ports: frames in flight with the
// cycle at which their first byte reaches the far end.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

struct Frame {
    std::vector<uint8_t> bytes;
    uint64_t arrives_at = 0;
    size_t delivered = 0;   // bytes already handed to the receiver
};

struct Link {
    std::deque<Frame> in_flight;
    uint64_t frames_sent = 0;
};
