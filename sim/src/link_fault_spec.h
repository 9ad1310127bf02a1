// RNIC_LINK_FAULTS's text (docs/platform.md, "Link faults"): groups split by
// ';', each a list of key=value split by ','. A group without nic= is for
// every NIC; groups apply in order, a later one replacing what an earlier
// one gave the NICs it names. Example:
//   drop=0.01,dup=0.01,seed=7;nic=1,rule=corrupt,frame=3,opcode=0x0a
#pragma once

#include <string>
#include <vector>

#include "rnic_sim.h"

struct LinkFaultGroup {
    int nic = -1;   // -1: every NIC
    rnic_sim_link_faults faults{};
};

// What the variable accepts, for its error message.
extern const char *const kLinkFaultSyntax;

// Parses `text` for a fabric of `nics` NICs. False, with *why naming the
// part at fault, for anything it does not accept: an unknown key, a key
// twice in a group, a value out of range, an empty group, rule keys
// without rule=, a configuration LinkFaults::check refuses.
bool parse_link_faults(const std::string &text, unsigned nics, std::vector<LinkFaultGroup> *out, std::string *why);
