// The packed structs of the generated package (rnic_pkg.sv, written by
// gen_spec.py from rtl/spec and the types in rtl/*.svh) as the unit benches
// see them, for a bench that drives or reads a port of such a struct.
//
// A bench types its picture of a struct as a table of FieldDesc: the
// members in declaration order with their widths (no header Verilator or
// gen_spec.py writes carries them). pkg_struct_members() reads the same out
// of the generated package (read_pkg()), and expect_pkg_struct() checks the
// one against the other, so a member renamed, moved or resized there fails
// a bench's `layout` test by name, not as a puzzle of mismatches in every
// other test. Which structs a bench checks, and its tables, are its own.
//
// A packed struct is one vector with its first member in the most
// significant bits: lsb_of() is a member's offset, pack() / put_struct() /
// unpack() move a value (an array of members, indexed as the table) in and
// out of the VlWide<N> Verilator makes of a port wider than 64 bits.
#ifndef RTL_UNIT_PKG_STRUCT_H
#define RTL_UNIT_PKG_STRUCT_H

#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "rnic_check.h"
#include "verilated.h"

// One member of a packed struct, as a bench types it.
struct FieldDesc {
    const char *name;
    unsigned width;
};

// ------------------------------------------------- the generated package

// One member of a packed struct, as the package declares it.
struct PkgMember {
    std::string name;
    unsigned width;
};

// The whole of the package file at `path` into `text`. Checked: a file that
// cannot be read fails (said on stderr), and gives false and no text.
inline bool read_pkg(const char *path, std::string &text) {
    text.clear();
    std::ifstream f(path);
    CHECK(f.good());
    if (!f.good()) {
        std::fprintf(stderr, "  cannot read %s\n", path);
        return false;
    }
    std::stringstream ss;
    ss << f.rdbuf();
    text = ss.str();
    return true;
}

// The members of `typedef struct packed { ... } name;` in `pkg` (the text
// of the package), in declaration order, each `logic [hi:lo] a, b;` or
// `logic a, b;` (comments dropped); empty when the struct is not found or
// has another form.
inline std::vector<PkgMember> pkg_struct_members(const std::string &pkg, const std::string &name) {
    std::vector<PkgMember> out;
    const std::size_t end = pkg.find("} " + name + ";");
    const std::string open = "typedef struct packed {";
    const std::size_t start = end == std::string::npos ? end : pkg.rfind(open, end);
    if (start == std::string::npos)
        return out;
    std::string body;   // without comments
    std::istringstream lines(pkg.substr(start + open.size(), end - start - open.size()));
    for (std::string line; std::getline(lines, line);) body += line.substr(0, line.find("//")) + " ";
    std::istringstream decls(body);
    for (std::string decl; std::getline(decls, decl, ';');) {
        std::istringstream t(decl);
        std::string kw;
        if (!(t >> kw))
            continue;   // after the last ';'
        std::string rest((std::istreambuf_iterator<char>(t)), std::istreambuf_iterator<char>());
        unsigned hi = 0, lo = 0, width = 1;
        const std::size_t lb = rest.find('[');
        if (kw != "logic" ||
            (lb != std::string::npos && (std::sscanf(rest.c_str() + lb, "[%u:%u]", &hi, &lo) != 2 || hi < lo)))
            return {};
        if (lb != std::string::npos) {
            width = hi - lo + 1;
            rest = rest.substr(rest.find(']') + 1);
        }
        std::istringstream ids(rest);
        for (std::string id; std::getline(ids, id, ',');) {
            std::string clean;
            for (char c : id)
                if (!std::isspace(static_cast<unsigned char>(c)))
                    clean += c;
            out.push_back({clean, width});
        }
    }
    return out;
}

// Checks that packed struct `name` of `pkg` has exactly the members of
// `want`: their number, then each one's name and width, in order (each
// difference said on stderr). one_bit: every member 1 bit wide whatever
// `want` says, as in an enable struct (qp_xs_we_t) that has a bit for each
// member of the struct `want` describes, of the same name.
inline void expect_pkg_struct(const std::string &pkg, const char *name, const FieldDesc *want, std::size_t n,
                              bool one_bit) {
    const std::vector<PkgMember> got = pkg_struct_members(pkg, name);
    CHECK_EQ(got.size(), n);
    if (got.size() != n) {
        std::fprintf(stderr, "  %s: %zu members in the generated package (or not found), the bench has %zu\n", name,
                     got.size(), n);
        return;
    }
    for (std::size_t i = 0; i < n; i++) {
        const unsigned width = one_bit ? 1u : want[i].width;
        CHECK(got[i].name == want[i].name);
        CHECK_EQ(got[i].width, width);
        if (got[i].name != want[i].name || got[i].width != width)
            std::fprintf(stderr, "  %s member %zu: package `%s` %u bits, bench `%s` %u bits\n", name, i,
                         got[i].name.c_str(), got[i].width, want[i].name, width);
    }
}
template <std::size_t N>
void expect_pkg_struct(const std::string &pkg, const char *name, const FieldDesc (&want)[N], bool one_bit = false) {
    expect_pkg_struct(pkg, name, want, N, one_bit);
}

// ------------------------------------------------------------ the layout

template <std::size_t N> constexpr unsigned total_bits(const FieldDesc (&d)[N]) {
    unsigned t = 0;
    for (std::size_t i = 0; i < N; i++) t += d[i].width;
    return t;
}
// The lowest bit of member i: the members after it sit below it.
template <std::size_t N> constexpr unsigned lsb_of(const FieldDesc (&d)[N], unsigned i) {
    unsigned lsb = 0;
    for (std::size_t j = i + 1; j < N; j++) lsb += d[j].width;
    return lsb;
}
constexpr uint64_t mask_of(unsigned width) { return width >= 64 ? ~0ull : (1ull << width) - 1ull; }
constexpr std::size_t words_of(unsigned bits) { return (bits + 31) / 32; }

// The word count of a port Verilator declared as VlWide<N> (a reference
// into the model's root, in Verilator 5), for checking a table's width
// against the port at compile time.
template <class T> struct WideWords;
template <std::size_t N> struct WideWords<VlWide<N>> { static constexpr std::size_t value = N; };
template <class T> constexpr std::size_t wide_words = WideWords<std::remove_cv_t<std::remove_reference_t<T>>>::value;

// Bits [lsb, lsb + width) of a vector of n 32-bit words, width <= 64 (a
// member may straddle words). One function for ports of every width, not a
// template on VlWide<N>: GCC 12 at -O3 (the Release build) inlined the
// 11-word copy into the 3-word one and reported a read past the 3-word port
// (-Warray-bounds, fatal with -Werror).
inline void words_check(std::size_t n, unsigned lsb, unsigned width) {
    if (width > 64 || lsb + width > 32 * n) {
        std::fprintf(stderr, "bench error: bits %u..%u of a %zu-word port\n", lsb, lsb + width - 1, n);
        std::exit(2);
    }
}
inline uint64_t words_get(const uint32_t *w, std::size_t n, unsigned lsb, unsigned width) {
    words_check(n, lsb, width);
    uint64_t v = 0;
    for (unsigned b = 0; b < width;) {
        const unsigned at = lsb + b, word = at / 32, shift = at % 32;
        const unsigned take = (32 - shift) < (width - b) ? (32 - shift) : (width - b);
        v |= ((static_cast<uint64_t>(w[word]) >> shift) & mask_of(take)) << b;
        b += take;
    }
    return v;
}
inline void words_put(uint32_t *w, std::size_t n, unsigned lsb, unsigned width, uint64_t v) {
    words_check(n, lsb, width);
    v &= mask_of(width);
    for (unsigned b = 0; b < width;) {
        const unsigned at = lsb + b, word = at / 32, shift = at % 32;
        const unsigned take = (32 - shift) < (width - b) ? (32 - shift) : (width - b);
        const uint32_t m = static_cast<uint32_t>(mask_of(take) << shift);
        w[word] = (w[word] & ~m) | (static_cast<uint32_t>((v >> b) << shift) & m);
        b += take;
    }
}
template <std::size_t N> uint64_t wide_get(const VlWide<N> &w, unsigned lsb, unsigned width) {
    return words_get(w.data(), N, lsb, width);
}
template <std::size_t N> void wide_put(VlWide<N> &w, unsigned lsb, unsigned width, uint64_t v) {
    words_put(w.data(), N, lsb, width, v);
}

// A struct's members into its bits of a port, the struct's lowest bit at
// `base` (several structs end to end: look l's row sits at its width times
// l); the port's other bits kept.
template <std::size_t N, std::size_t F, class T>
void put_struct(VlWide<N> &w, unsigned base, const FieldDesc (&d)[F], const std::array<T, F> &v) {
    static_assert(std::is_integral_v<T>, "a member's value is an integer");
    for (unsigned i = 0; i < F; i++) wide_put(w, base + lsb_of(d, i), d[i].width, static_cast<uint64_t>(v[i]));
}
// A whole struct into its port; bits above the struct are zero.
template <std::size_t N, std::size_t F, class T>
void pack(VlWide<N> &w, const FieldDesc (&d)[F], const std::array<T, F> &v) {
    for (std::size_t i = 0; i < N; i++) w[i] = 0;
    put_struct(w, 0, d, v);
}
// A struct out of its port, its lowest bit at `base`.
template <std::size_t N, std::size_t F>
std::array<uint64_t, F> unpack(const VlWide<N> &w, const FieldDesc (&d)[F], unsigned base = 0) {
    std::array<uint64_t, F> v{};
    for (unsigned i = 0; i < F; i++) v[i] = wide_get(w, base + lsb_of(d, i), d[i].width);
    return v;
}

// --------------------------------------- structs more than one unit carries

// sched_xs_t (rtl/rnic_engine_types.svh), in declaration order: the
// scheduler's part of a QP's transport state, one look's row. Its own
// picture in both benches of the units that carry it: rnic_qp_transport
// makes the rows (look_xs out), rnic_sq_scheduler reads them (look_xs in);
// each bench's `layout` test checks it against the package.
enum SxField : unsigned {
    kSxSqCi, kSxDone, kSxRqCi, kSxHoldDone, kSxFenced, kSxBindWait, kSxRdHold, kSxRnrWait, kSxPaused, kSxOldestOp,
    kSxFields
};
inline constexpr FieldDesc kSxDesc[kSxFields] = {
    {"sq_ci", 16},  {"done", 16},    {"rq_ci", 16},   {"hold_done", 16}, {"fenced", 1},
    {"bind_wait", 1}, {"rd_hold", 1}, {"rnr_wait", 1}, {"paused", 1},     {"oldest_op", 8},
};
constexpr unsigned kSxBits = total_bits(kSxDesc);   // XSW in both units (the package's SCHED_XS_W)

#endif
