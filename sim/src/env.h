// The environment variables the platform reads, each through Env::read: an
// unset or empty variable keeps the default, a value the variable accepts is
// taken, and any other value is an error naming the variable, the value and
// what it accepts. A wrong value never quietly becomes the default: a typo
// in RNIC_SIM_MODE would otherwise run the program in a mode nobody chose.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>

namespace Env {

// Reads `name`. Unset or empty: nothing happens (the caller's default
// stands). Otherwise `take` is given the text and returns whether the
// variable accepts it (storing the value where it belongs); false, with
// *error saying "NAME=VALUE is invalid; accepted: <accepted>", if not.
bool read(const std::string &name, const std::string &accepted, const std::function<bool(const std::string &)> &take,
          std::string *error);

// A decimal number from min to max: digits only (no sign, no blanks, no
// suffix), so "-5" or "1e3" never turn into some other number.
bool number(const std::string &name, uint64_t min, uint64_t max, uint64_t *out, std::string *error);

// One of the words listed, giving the number paired with it.
bool word(const std::string &name, std::initializer_list<std::pair<const char *, int>> words, int *out,
          std::string *error);

// Any text (a file name).
void text(const std::string &name, std::string *out);

// The parsers behind those, for variables whose value has parts of its own
// (RNIC_LINK_FAULTS). Decimal digits only, at most `max`.
bool parse_decimal(const std::string &s, uint64_t max, uint64_t *out);
// Digits with at most one '.' among them ("0.25", "1", ".5", "1."): no
// sign, no exponent, no blanks, whatever the program's locale says.
bool parse_fraction(const std::string &s, double *out);

}  // namespace Env
