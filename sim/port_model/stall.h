// A platform may hold off any of its handshakes for a cycle: the rtl_core
// bench does, at random, to exercise the NIC's side of every valid/ready
// pair; the SystemC platform never does. The port model draws once per
// handshake per cycle, in a fixed order (port_model.h), so a seeded run
// repeats exactly.
#pragma once

#include <functional>

using Stall = std::function<bool()>;

inline bool stalled(const Stall &s) { return s && s(); }
