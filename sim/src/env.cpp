#include "env.h"

#include <charconv>
#include <cstdlib>

namespace Env {

bool read(const std::string &name, const std::string &accepted, const std::function<bool(const std::string &)> &take,
          std::string *error) {
    const char *v = std::getenv(name.c_str());
    if (!v || !*v)
        return true;
    if (take(v))
        return true;
    *error = name + "=" + v + " is invalid; accepted: " + accepted;
    return false;
}

// Digits only, at most `max`: strtoull would take a sign ("-5" wraps to a
// huge number), blanks and a suffix, and saturate on overflow.
bool parse_decimal(const std::string &s, uint64_t max, uint64_t *out) {
    uint64_t v = 0;
    for (const char c : s) {
        if (c < '0' || c > '9')
            return false;
        const uint64_t d = static_cast<uint64_t>(c - '0');
        if (d > max || v > (max - d) / 10)   // d > max: max - d would wrap
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return !s.empty();
}

// from_chars, not strtod: strtod reads "0,5" in a German locale the
// program may have set, and takes "nan", "inf" and hex floats.
bool parse_fraction(const std::string &s, double *out) {
    size_t digits = 0, dots = 0;
    for (const char c : s) {
        if (c >= '0' && c <= '9')
            ++digits;
        else if (c == '.')
            ++dots;
        else
            return false;
    }
    if (digits == 0 || dots > 1)
        return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), *out, std::chars_format::fixed);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool number(const std::string &name, uint64_t min, uint64_t max, uint64_t *out, std::string *error) {
    const std::string accepted = "a decimal number from " + std::to_string(min) + " to " + std::to_string(max);
    return read(
        name, accepted,
        [&](const std::string &s) {
            uint64_t v;
            if (!parse_decimal(s, max, &v) || v < min)
                return false;
            *out = v;
            return true;
        },
        error);
}

bool word(const std::string &name, std::initializer_list<std::pair<const char *, int>> words, int *out,
          std::string *error) {
    std::string accepted;
    size_t left = words.size();
    for (const auto &w : words) {
        accepted += w.first;
        --left;
        accepted += left > 1 ? ", " : left == 1 ? " or " : "";
    }
    return read(
        name, accepted,
        [&](const std::string &s) {
            for (const auto &w : words)
                if (s == w.first) {
                    *out = w.second;
                    return true;
                }
            return false;
        },
        error);
}

void text(const std::string &name, std::string *out) {
    std::string unused;
    read(
        name, "any text",
        [&](const std::string &s) {
            *out = s;
            return true;
        },
        &unused);
}

}  // namespace Env
