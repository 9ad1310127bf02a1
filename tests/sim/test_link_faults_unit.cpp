// The link fault model (sim/src/link_faults.*) and RNIC_LINK_FAULTS's parser
// (sim/src/link_fault_spec.*) on their own, with frames made here: no
// SystemC, no RTL. Each rule fault does exactly what it says to exactly the
// frame it names (counted from 0, optionally among one BTH opcode's
// frames), delayed and reordered frames leave at the cycles promised and in
// the order promised, a corrupted frame differs in one byte the ICRC covers,
// a seed gives the same faults on every run and another seed other ones,
// random faults come at their probabilities over 100,000 frames, every
// frame judged is accounted for, and bad configurations are refused.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "env.h"
#include "link_fault_spec.h"
#include "link_faults.h"
#include "rnic_check.h"

namespace {

using Frame = std::vector<uint8_t>;

// A RoCEv2 frame over IPv4 (Ethernet 14, IPv4 20, UDP 8, BTH 12, payload,
// ICRC 4); the frame's number goes into the source MAC, which corruption
// never touches, so that frames can be told apart after the model. The
// checksums are not filled in: the model never reads them.
Frame roce(uint8_t opcode, uint32_t tag, size_t payload = 64) {
    Frame f(14 + 20 + 8 + 12 + payload + 4, 0);
    f[12] = 0x08;
    f[13] = 0x00;
    f[14] = 0x45;
    f[23] = 17;
    f[36] = 4791 >> 8;
    f[37] = 4791 & 0xFF;
    f[42] = opcode;
    for (int i = 0; i < 4; ++i)
        f[6 + i] = static_cast<uint8_t>(tag >> (24 - 8 * i));
    for (size_t i = 54; i < f.size(); ++i)
        f[i] = static_cast<uint8_t>(i * 7 + tag);
    return f;
}

uint32_t tag_of(const Frame &f) {
    return f.size() >= 14 ? (uint32_t)f[6] << 24 | (uint32_t)f[7] << 16 | (uint32_t)f[8] << 8 | f[9] : ~0u;
}

struct Out {
    Frame bytes;
    uint64_t cycle;
};

// Submits frames and records what reaches the wire, and when.
struct Bench {
    LinkFaults lf{0};
    std::vector<Out> wire;

    void send(Frame f, uint64_t cycle) {
        lf.submit(std::move(f), cycle);
        lf.release(cycle, [&](Frame &&b) { wire.push_back(Out{std::move(b), cycle}); });
    }
    // The fabric's cycles in between: a release at every cycle something is due.
    void run_until(uint64_t cycle) {
        for (uint64_t at = lf.next_release(); at <= cycle; at = lf.next_release())
            lf.release(at, [&](Frame &&b) { wire.push_back(Out{std::move(b), at}); });
    }
    std::vector<uint32_t> tags() const {
        std::vector<uint32_t> t;
        for (const Out &o : wire)
            t.push_back(tag_of(o.bytes));
        return t;
    }
};

rnic_sim_link_faults rule(int kind, uint64_t frame) {
    rnic_sim_link_faults f{};
    f.rule = kind;
    f.rule_frame = frame;
    return f;
}

void test_pass_and_bypass() {
    Bench b;
    CHECK(b.lf.bypass());
    rnic_sim_link_faults none{};
    b.lf.configure(&none);
    CHECK(!b.lf.bypass());
    for (uint32_t i = 0; i < 5; ++i)
        b.send(roce(0x0A, i), 10 * i);
    CHECK(b.tags() == (std::vector<uint32_t>{0, 1, 2, 3, 4}));
    for (uint32_t i = 0; i < 5; ++i)
        CHECK_EQ(b.wire[i].cycle, 10 * i);   // nothing held: on the wire in the cycle it was sent
    const rnic_sim_link_fault_stats s = b.lf.stats();
    CHECK_EQ(s.seen, 5);
    CHECK_EQ(s.dropped + s.duplicated + s.corrupted + s.delayed + s.reordered + s.held, 0);
    b.lf.configure(nullptr);
    CHECK(b.lf.bypass());
    CHECK_EQ(b.lf.stats().seen, 0);
}

void test_rule_drop_dup() {
    Bench d;
    rnic_sim_link_faults f = rule(RNIC_SIM_FAULT_DROP, 3);
    d.lf.configure(&f);
    for (uint32_t i = 0; i < 6; ++i)
        d.send(roce(0x0A, i), i);
    CHECK(d.tags() == (std::vector<uint32_t>{0, 1, 2, 4, 5}));   // frame 3 is the fourth one
    CHECK_EQ(d.lf.stats().dropped, 1);
    CHECK_EQ(d.lf.stats().seen, 6);

    Bench u;
    f = rule(RNIC_SIM_FAULT_DUP, 2);
    u.lf.configure(&f);
    for (uint32_t i = 0; i < 4; ++i)
        u.send(roce(0x0A, i), i);
    CHECK(u.tags() == (std::vector<uint32_t>{0, 1, 2, 2, 3}));
    CHECK(u.wire[2].bytes == u.wire[3].bytes);
    CHECK_EQ(u.wire[3].cycle, 2);
    CHECK_EQ(u.lf.stats().duplicated, 1);

    // count: that many matching frames from rule_frame on; UINT64_MAX: all.
    Bench c;
    f = rule(RNIC_SIM_FAULT_DROP, 2);
    f.rule_count = 3;
    c.lf.configure(&f);
    for (uint32_t i = 0; i < 8; ++i)
        c.send(roce(0x0A, i), i);
    CHECK(c.tags() == (std::vector<uint32_t>{0, 1, 5, 6, 7}));
    f.rule_count = UINT64_MAX;
    c.lf.configure(&f);   // counts start over
    c.wire.clear();
    for (uint32_t i = 0; i < 8; ++i)
        c.send(roce(0x0A, i), i);
    CHECK(c.tags() == (std::vector<uint32_t>{0, 1}));
    CHECK_EQ(c.lf.stats().dropped, 6);
}

// Only RoCEv2 frames with that BTH opcode count, and only they are hit.
void test_rule_opcode() {
    Bench b;
    rnic_sim_link_faults f = rule(RNIC_SIM_FAULT_DROP, 1);
    f.rule_by_opcode = 1;
    f.rule_opcode = 0x07;   // RDMA WRITE MIDDLE
    b.lf.configure(&f);
    Frame not_roce = roce(0x07, 100);
    not_roce[37] ^= 1;   // UDP port 4790
    Frame options = roce(0x07, 101);
    options[14] = 0x46;   // an IPv4 header with options: the BTH is elsewhere
    b.send(roce(0x06, 0), 0);
    b.send(not_roce, 1);
    b.send(roce(0x07, 1), 2);
    b.send(options, 3);
    b.send(roce(0x07, 2), 4);   // the second WRITE MIDDLE: frame 1 of the rule's count
    b.send(roce(0x07, 3), 5);
    b.send(roce(0x08, 4), 6);
    CHECK(b.tags() == (std::vector<uint32_t>{0, 100, 1, 101, 3, 4}));
    CHECK_EQ(b.lf.stats().seen, 7);
    CHECK_EQ(b.lf.stats().dropped, 1);
    CHECK(LinkFaults::is_roce(roce(1, 0).data(), roce(1, 0).size()));
    CHECK(!LinkFaults::is_roce(not_roce.data(), not_roce.size()));
    CHECK(!LinkFaults::is_roce(roce(1, 0).data(), 42));   // no byte at the BTH
}

// A delayed frame leaves delay_cycles later and the frames behind it wait.
void test_delay() {
    Bench b;
    rnic_sim_link_faults f = rule(RNIC_SIM_FAULT_DELAY, 1);
    f.delay_cycles = 50;
    b.lf.configure(&f);
    b.send(roce(0x0A, 0), 0);
    b.send(roce(0x0A, 1), 10);
    CHECK_EQ(b.lf.next_release(), 60);
    b.send(roce(0x0A, 2), 20);
    CHECK_EQ(b.lf.stats().held, 2);
    b.run_until(59);
    CHECK_EQ(b.wire.size(), 1);
    b.run_until(60);
    CHECK(b.tags() == (std::vector<uint32_t>{0, 1, 2}));
    if (b.wire.size() == 3) {
        CHECK_EQ(b.wire[1].cycle, 60);
        CHECK_EQ(b.wire[2].cycle, 60);
    }
    b.send(roce(0x0A, 3), 70);
    CHECK_EQ(b.wire.back().cycle, 70);
    CHECK_EQ(b.lf.next_release(), LinkFaults::kNever);
    CHECK_EQ(b.lf.stats().delayed, 1);
    CHECK_EQ(b.lf.stats().held, 0);

    rnic_sim_link_faults d = rule(RNIC_SIM_FAULT_DELAY, 0);   // delay_cycles 0: the default
    b.lf.configure(&d);
    b.send(roce(0x0A, 4), 100);
    CHECK_EQ(b.lf.next_release(), 100 + LinkFaults::kDefaultDelayCycles);
}

// A reordered frame leaves right behind the next frame sent, or at its deadline.
void test_reorder() {
    Bench b;
    rnic_sim_link_faults f = rule(RNIC_SIM_FAULT_REORDER, 1);
    f.reorder_cycles = 100;
    b.lf.configure(&f);
    b.send(roce(0x0A, 0), 0);
    b.send(roce(0x0A, 1), 10);
    CHECK_EQ(b.lf.next_release(), 110);
    b.send(roce(0x0A, 2), 20);
    b.send(roce(0x0A, 3), 30);
    CHECK(b.tags() == (std::vector<uint32_t>{0, 2, 1, 3}));
    if (b.wire.size() == 4)
        CHECK_EQ(b.wire[2].cycle, 20);
    CHECK_EQ(b.lf.stats().reordered, 1);

    // The last frame: nothing overtakes it; it leaves at its deadline.
    Bench last;
    f = rule(RNIC_SIM_FAULT_REORDER, 0);
    f.reorder_cycles = 100;
    last.lf.configure(&f);
    last.send(roce(0x0A, 0), 5);
    CHECK_EQ(last.wire.size(), 0);
    CHECK_EQ(last.lf.next_release(), 105);
    last.run_until(104);
    CHECK_EQ(last.wire.size(), 0);
    last.run_until(105);
    CHECK_EQ(last.wire.size(), 1);
    if (last.wire.size() == 1)
        CHECK_EQ(last.wire[0].cycle, 105);

    // A dropped frame is not the one it waits for; a delayed one is, and
    // it leaves behind that one.
    Bench mix;
    rnic_sim_link_faults m = rule(RNIC_SIM_FAULT_REORDER, 0);
    mix.lf.configure(&m);
    mix.send(roce(0x0A, 0), 0);
    m = rule(RNIC_SIM_FAULT_DROP, 0);
    mix.lf.configure(&m);   // the held frame stays held
    CHECK_EQ(mix.lf.stats().held, 1);
    mix.send(roce(0x0A, 1), 10);
    CHECK_EQ(mix.wire.size(), 0);
    m = rule(RNIC_SIM_FAULT_DELAY, 0);
    m.delay_cycles = 40;
    mix.lf.configure(&m);
    mix.send(roce(0x0A, 2), 20);
    mix.run_until(1000);
    CHECK(mix.tags() == (std::vector<uint32_t>{2, 0}));
    if (mix.wire.size() == 2)
        CHECK_EQ(mix.wire[1].cycle, 60);

    // With the slot taken, a second reorder is the frame the first goes after.
    Bench two;
    rnic_sim_link_faults t{};
    t.reorder = 1.0;
    two.lf.configure(&t);
    for (uint32_t i = 0; i < 4; ++i)
        two.send(roce(0x0A, i), i);
    CHECK(two.tags() == (std::vector<uint32_t>{1, 0, 3, 2}));
    CHECK_EQ(two.lf.stats().reordered, 2);

    // Clearing the configuration keeps a held frame's promise.
    Bench clr;
    f = rule(RNIC_SIM_FAULT_REORDER, 0);
    clr.lf.configure(&f);
    clr.send(roce(0x0A, 0), 0);
    clr.lf.configure(nullptr);
    CHECK(!clr.lf.bypass());
    clr.send(roce(0x0A, 1), 1);
    CHECK(clr.tags() == (std::vector<uint32_t>{1, 0}));
    CHECK(clr.lf.bypass());
}

// One byte differs, after the Ethernet header, never one the ICRC leaves out;
// over many seeds the byte moves around the frame.
void test_corrupt() {
    const size_t invariant[] = {15, 22, 24, 25, 40, 41, 46};
    size_t lowest = SIZE_MAX, highest = 0;
    bool in_headers = false;
    for (uint64_t seed = 0; seed < 2000; ++seed) {
        Bench b;
        rnic_sim_link_faults f = rule(RNIC_SIM_FAULT_CORRUPT, 0);
        f.seed = seed;
        b.lf.configure(&f);
        const Frame sent = roce(0x0A, 7, 16);
        b.send(sent, 0);
        CHECK_EQ(b.wire.size(), 1);
        if (b.wire.size() != 1)
            return;
        const Frame &got = b.wire[0].bytes;
        CHECK_EQ(got.size(), sent.size());
        size_t diffs = 0, at = 0;
        for (size_t i = 0; i < sent.size(); ++i)
            if (got[i] != sent[i]) {
                ++diffs;
                at = i;
            }
        CHECK_EQ(diffs, 1);
        CHECK(at >= 14);
        for (const size_t m : invariant)
            CHECK(at != m);
        lowest = std::min(lowest, at);
        highest = std::max(highest, at);
        in_headers |= at < 42;
        CHECK_EQ(b.lf.stats().corrupted, 1);
    }
    CHECK_EQ(lowest, 14);
    CHECK_EQ(highest, roce(0x0A, 7, 16).size() - 1);   // the ICRC's last byte
    CHECK(in_headers);

    // Not RoCE: any byte after the Ethernet header; a bare header has none.
    Bench b;
    rnic_sim_link_faults f = rule(RNIC_SIM_FAULT_CORRUPT, 0);
    f.rule_count = 2;
    b.lf.configure(&f);
    Frame arp(60, 0x11);
    arp[12] = 0x08;
    arp[13] = 0x06;
    b.send(arp, 0);
    b.send(Frame(14, 0x22), 1);
    CHECK_EQ(b.wire.size(), 2);
    if (b.wire.size() == 2) {
        size_t diffs = 0;
        for (size_t i = 0; i < arp.size(); ++i)
            diffs += b.wire[0].bytes[i] != arp[i] ? (i >= 14 ? 1 : 100) : 0;
        CHECK_EQ(diffs, 1);
        CHECK(b.wire[1].bytes == Frame(14, 0x22));
    }
    CHECK_EQ(b.lf.stats().corrupted, 1);
}

// What one configuration does to 100,000 frames.
struct Run {
    rnic_sim_link_fault_stats s;
    std::vector<uint32_t> tags;
    size_t out = 0;
};

Run run(uint64_t seed, unsigned nic = 0) {
    rnic_sim_link_faults f{};
    f.drop = 0.10;
    f.dup = 0.05;
    f.corrupt = 0.05;
    f.delay = 0.05;
    f.reorder = 0.05;
    f.delay_cycles = 30;
    f.reorder_cycles = 30;
    f.seed = seed;
    Bench b;
    b.lf = LinkFaults(nic);
    b.lf.configure(&f);
    for (uint32_t i = 0; i < 100000; ++i) {
        b.run_until(10 * i);
        b.send(roce(0x0A, i, 8), 10 * i);
    }
    b.run_until(UINT64_MAX - 1);
    Run r{b.lf.stats(), b.tags(), b.wire.size()};
    return r;
}

bool same(const rnic_sim_link_fault_stats &a, const rnic_sim_link_fault_stats &b) {
    return std::memcmp(&a, &b, sizeof(a)) == 0;
}

void test_random() {
    const Run a = run(7), again = run(7), other = run(8), nic1 = run(7, 1);
    CHECK(same(a.s, again.s));
    CHECK(a.tags == again.tags);
    CHECK(!same(a.s, other.s));
    CHECK(a.tags != other.tags);
    CHECK(a.tags != nic1.tags);   // one seed, another NIC: other faults
    const double n = static_cast<double>(a.s.seen);
    CHECK_EQ(a.s.seen, 100000);
    CHECK_EQ(a.s.held, 0);
    // Generous: a binomial's standard deviation here is 0.1 % to 0.3 % of
    // the count, the bounds are 10 %. A reorder needs the slot free, so
    // its rate is 5 % of the 95 % of frames not right behind a reorder.
    CHECK(std::fabs(a.s.dropped / n - 0.10) < 0.010);
    CHECK(std::fabs(a.s.duplicated / n - 0.05) < 0.005);
    CHECK(std::fabs(a.s.corrupted / n - 0.05) < 0.005);
    CHECK(std::fabs(a.s.delayed / n - 0.05) < 0.005);
    CHECK(std::fabs(a.s.reordered / n - 0.05 * 0.95) < 0.005);
    // Every frame accounted for: none lost, none made up but the copies.
    CHECK_EQ(a.out, a.s.seen - a.s.dropped + a.s.duplicated);
    // Reordering happened, and the rest kept its order.
    size_t swaps = 0;
    for (size_t i = 1; i < a.tags.size(); ++i)
        swaps += a.tags[i] < a.tags[i - 1];
    CHECK(swaps > 0);
    CHECK(swaps <= a.s.reordered);
}

void test_check() {
    rnic_sim_link_faults f{};
    CHECK(LinkFaults::check(f).empty());
    f.drop = 0.1;
    f.dup = 0.2;
    f.reorder = 0.7;   // 1.0000000000000002 in binary
    CHECK(LinkFaults::check(f).empty());
    f.reorder = 0.71;
    CHECK(!LinkFaults::check(f).empty());
    const double bad[] = {-0.1, 1.5, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()};
    for (const double v : bad) {
        rnic_sim_link_faults g{};
        g.corrupt = v;
        CHECK(!LinkFaults::check(g).empty());
    }
    rnic_sim_link_faults g{};
    g.rule = 6;
    CHECK(!LinkFaults::check(g).empty());
    g.rule = -1;
    CHECK(!LinkFaults::check(g).empty());
    g = rnic_sim_link_faults{};
    g.delay_cycles = LinkFaults::kMaxCycles;
    CHECK(LinkFaults::check(g).empty());
    g.delay_cycles = LinkFaults::kMaxCycles + 1;
    CHECK(!LinkFaults::check(g).empty());
    g = rnic_sim_link_faults{};
    g.reorder_cycles = LinkFaults::kMaxCycles + 1;
    CHECK(!LinkFaults::check(g).empty());
}

void test_fraction() {
    const std::pair<const char *, double> good[] = {{"0", 0}, {"1", 1}, {"0.25", 0.25}, {".5", 0.5}, {"1.", 1}, {"007", 7}};
    for (const auto &g : good) {
        double v = -1;
        CHECK(Env::parse_fraction(g.first, &v));
        CHECK(v == g.second);
    }
    for (const char *b : {"", ".", "1.2.3", "-0.1", "+0.1", "1e-3", "nan", "inf", " 0.1", "0.1 ", "0,5", "0x1p-3"}) {
        double v;
        CHECK(!Env::parse_fraction(b, &v));
    }
}

void test_spec() {
    std::vector<LinkFaultGroup> g;
    std::string why;
    CHECK(parse_link_faults("drop=0.01,dup=0.02,seed=7", 2, &g, &why));
    CHECK_EQ(g.size(), 1);
    if (g.size() == 1) {
        CHECK_EQ(g[0].nic, -1);
        CHECK(g[0].faults.drop == 0.01 && g[0].faults.dup == 0.02);
        CHECK_EQ(g[0].faults.seed, 7);
        CHECK_EQ(g[0].faults.rule, RNIC_SIM_FAULT_NONE);
    }
    CHECK(parse_link_faults("corrupt=.5,delay=0.25,delay_cycles=300,reorder=0.25,reorder_cycles=9;"
                            "nic=1,rule=reorder,frame=3,count=all,opcode=0x0A;nic=0,rule=dup,opcode=17,count=2",
                            2, &g, &why));
    CHECK_EQ(g.size(), 3);
    if (g.size() == 3) {
        CHECK(g[0].faults.corrupt == 0.5 && g[0].faults.delay == 0.25 && g[0].faults.reorder == 0.25);
        CHECK_EQ(g[0].faults.delay_cycles, 300);
        CHECK_EQ(g[0].faults.reorder_cycles, 9);
        CHECK_EQ(g[1].nic, 1);
        CHECK_EQ(g[1].faults.rule, RNIC_SIM_FAULT_REORDER);
        CHECK_EQ(g[1].faults.rule_frame, 3);
        CHECK(g[1].faults.rule_count == UINT64_MAX);
        CHECK_EQ(g[1].faults.rule_by_opcode, 1);
        CHECK_EQ(g[1].faults.rule_opcode, 0x0A);
        CHECK_EQ(g[2].nic, 0);
        CHECK_EQ(g[2].faults.rule, RNIC_SIM_FAULT_DUP);
        CHECK_EQ(g[2].faults.rule_opcode, 17);
        CHECK_EQ(g[2].faults.rule_count, 2);
    }
    const char *bad[] = {
        "drop=1.5",          "drop=-0.1",         "drop=abc",           "drop=0.6,dup=0.6", "drop",
        "drop=0.1,drop=0.2", "nic=2,drop=0.1",    "nic=-1,drop=0.1",    "nic=,drop=0.1",    "bogus=1",
        "frame=3",           "opcode=7",          "rule=explode",       "rule=drop,opcode=0x100",
        "rule=drop,opcode=256", "rule=drop,frame=-1", "delay_cycles=1000000001", "seed=18446744073709551616",
        "drop=0.1;",         ";drop=0.1",         "",                   "drop=0.1,,dup=0.1", "rule=drop,count=some",
    };
    for (const char *b : bad) {
        why.clear();
        const bool ok = parse_link_faults(b, 2, &g, &why);
        CHECK(!ok);
        CHECK(!why.empty());
        if (ok || why.empty())
            std::fprintf(stderr, "  accepted: \"%s\"\n", b);
    }
    CHECK(parse_link_faults("drop=0.1,drop_x", 2, &g, &why) == false);
    CHECK(why.find("drop_x") != std::string::npos);
    CHECK(parse_link_faults("nic=3,dup=1", 4, &g, &why));   // four NICs: nic=3 is one
}

}  // namespace

int main() {
    test_pass_and_bypass();
    test_rule_drop_dup();
    test_rule_opcode();
    test_delay();
    test_reorder();
    test_corrupt();
    test_random();
    test_check();
    test_fraction();
    test_spec();
    return rnic_check_summary("test_link_faults_unit") == 0 && rnic_check_total() > 0 ? 0 : 1;
}
