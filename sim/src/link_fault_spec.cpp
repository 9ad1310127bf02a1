#include "link_fault_spec.h"

#include <cstdint>
#include <set>

#include "env.h"
#include "link_faults.h"

const char *const kLinkFaultSyntax =
    "groups split by ';' of key=value split by ',' with keys nic, drop, dup, corrupt, delay, reorder "
    "(probabilities), delay_cycles, reorder_cycles, seed, rule (drop, dup, corrupt, delay or reorder), "
    "frame, count (a number or all), opcode (0..255 or 0x00..0xff); docs/platform.md, \"Link faults\"";

namespace {

std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> parts;
    size_t from = 0;
    for (;;) {
        const size_t at = s.find(sep, from);
        parts.push_back(s.substr(from, at == std::string::npos ? std::string::npos : at - from));
        if (at == std::string::npos)
            return parts;
        from = at + 1;
    }
}

bool kind(const std::string &v, int *out) {
    static const std::pair<const char *, int> kinds[] = {{"drop", RNIC_SIM_FAULT_DROP},
                                                         {"dup", RNIC_SIM_FAULT_DUP},
                                                         {"corrupt", RNIC_SIM_FAULT_CORRUPT},
                                                         {"delay", RNIC_SIM_FAULT_DELAY},
                                                         {"reorder", RNIC_SIM_FAULT_REORDER}};
    for (const auto &k : kinds)
        if (v == k.first) {
            *out = k.second;
            return true;
        }
    return false;
}

// Opcodes are written in hex in the specification and in Wireshark, so
// this one number may be given either way.
bool opcode(const std::string &v, uint8_t *out) {
    uint64_t n = 0;
    if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
        if (v.size() > 4)
            return false;
        for (size_t i = 2; i < v.size(); ++i) {
            const char c = v[i];
            const int d = c >= '0' && c <= '9' ? c - '0'
                          : c >= 'a' && c <= 'f' ? c - 'a' + 10
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                 : -1;
            if (d < 0)
                return false;
            n = n * 16 + static_cast<uint64_t>(d);
        }
    } else if (!Env::parse_decimal(v, 255, &n)) {
        return false;
    }
    *out = static_cast<uint8_t>(n);
    return true;
}

// One key=value into `g`; false with *why for a value the key refuses.
bool item(const std::string &key, const std::string &v, unsigned nics, LinkFaultGroup *g, std::string *why) {
    rnic_sim_link_faults &f = g->faults;
    double *p = key == "drop"      ? &f.drop
                : key == "dup"     ? &f.dup
                : key == "corrupt" ? &f.corrupt
                : key == "delay"   ? &f.delay
                : key == "reorder" ? &f.reorder
                                   : nullptr;
    uint64_t n = 0;
    bool ok = true;
    if (p) {
        ok = Env::parse_fraction(v, p) && *p <= 1.0;
        *why = "a probability from 0 to 1";
    } else if (key == "nic") {
        ok = Env::parse_decimal(v, nics - 1, &n);
        g->nic = static_cast<int>(n);
        *why = "a NIC of the fabric, 0 to " + std::to_string(nics - 1);
    } else if (key == "delay_cycles" || key == "reorder_cycles") {
        ok = Env::parse_decimal(v, LinkFaults::kMaxCycles, &n);
        (key == "delay_cycles" ? f.delay_cycles : f.reorder_cycles) = static_cast<uint32_t>(n);
        *why = "a number of cycles, 0 to " + std::to_string(LinkFaults::kMaxCycles);
    } else if (key == "seed" || key == "frame") {
        ok = Env::parse_decimal(v, UINT64_MAX, key == "seed" ? &f.seed : &f.rule_frame);
        *why = "a decimal number";
    } else if (key == "count") {
        ok = v == "all" || Env::parse_decimal(v, UINT64_MAX, &f.rule_count);
        if (v == "all")
            f.rule_count = UINT64_MAX;
        *why = "a decimal number or all";
    } else if (key == "rule") {
        ok = kind(v, &f.rule);
        *why = "drop, dup, corrupt, delay or reorder";
    } else if (key == "opcode") {
        ok = opcode(v, &f.rule_opcode);
        f.rule_by_opcode = 1;
        *why = "0 to 255, or 0x00 to 0xff";
    } else {
        ok = false;
        *why = "an unknown key";
    }
    if (!ok)
        *why = key + "=" + v + ": " + *why;
    return ok;
}

bool group(const std::string &text, unsigned nics, LinkFaultGroup *g, std::string *why) {
    if (text.empty()) {
        *why = "an empty group";
        return false;
    }
    std::set<std::string> seen;
    for (const std::string &it : split(text, ',')) {
        const size_t eq = it.find('=');
        if (eq == std::string::npos) {
            *why = "\"" + it + "\" is not key=value";
            return false;
        }
        const std::string key = it.substr(0, eq);
        if (!seen.insert(key).second) {
            *why = key + " twice in one group";
            return false;
        }
        if (!item(key, it.substr(eq + 1), nics, g, why))
            return false;
    }
    if (g->faults.rule == RNIC_SIM_FAULT_NONE && (seen.count("frame") || seen.count("count") || seen.count("opcode"))) {
        *why = "frame, count and opcode need rule=";
        return false;
    }
    const std::string bad = LinkFaults::check(g->faults);
    if (!bad.empty()) {
        *why = bad;
        return false;
    }
    return true;
}

}  // namespace

bool parse_link_faults(const std::string &text, unsigned nics, std::vector<LinkFaultGroup> *out, std::string *why) {
    std::vector<LinkFaultGroup> groups;
    for (const std::string &g : split(text, ';')) {
        groups.emplace_back();
        if (!group(g, nics, &groups.back(), why))
            return false;
    }
    *out = std::move(groups);
    return true;
}
