// One NIC's end of its link (link.h): the tx port's beats become frames,
// frames that have arrived become rx beats (docs/platform.md, "Links").
//
// tx: a beat is taken while the link has room (tx_tready); its bytes are the
// lanes tkeep names; the beat with tlast completes the frame, which waits
// here for the owner to take it (take_frame) and put it on the wire: what
// happens to a frame on its way (hooks, captures, sockets) is the owner's.
// A frame longer than kMaxFrameBytes (a NIC that never raises tlast) is cut
// and dropped with a warning.
//
// rx: the oldest frame that has arrived is offered one beat
// (RNIC_DATA_BYTES) per cycle, low lanes first, tkeep contiguous from lane
// 0; a beat stays on the port until the NIC takes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "link.h"
#include "port_pins.h"
#include "stall.h"

class LinkPort {
public:
    // A frame longer than this never ends (tlast missing): it is cut and dropped.
    static constexpr size_t kMaxFrameBytes = 16 * 1024;

    // `name` starts the warning about an overlong frame.
    explicit LinkPort(std::string name) : name_(std::move(name)) {}

    void connect(Link *tx, Link *rx) {
        tx_ = tx;
        rx_ = rx;
    }

    // Before eval: tx ready (one stall draw), then the rx beat (one more
    // draw when a frame waits to start a beat).
    void drive(PortInputs &in, const Stall &stall);
    // After eval, clock low: a tx beat taken (maybe completing a frame), an
    // rx beat taken.
    void sample(const PortInputs &in, const PortOutputs &out);
    // At the edge: the rx beat taken leaves the link.
    void commit();

    // A frame completed in the last sample(), until taken.
    bool frame_sent() const { return sent_; }
    std::vector<uint8_t> take_frame() {
        sent_ = false;
        return std::move(done_);
    }
    // No frame half sent.
    bool tx_empty() const { return frame_.empty(); }
    // A received frame is on the port or half taken.
    bool rx_busy() const;
    void reset();

private:
    void take_tx_beat(const PortOutputs &out);

    std::string name_;
    Link *tx_ = nullptr;
    Link *rx_ = nullptr;
    std::vector<uint8_t> frame_;   // the frame being sent
    bool overlong_ = false;
    std::vector<uint8_t> done_;    // the frame just completed
    bool sent_ = false;
    bool rx_presenting_ = false;
    bool rx_taken_ = false;
    unsigned rx_bytes_ = 0;        // bytes of the beat on the rx port
};
