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

}  // namespace Env
