#include "host_access.h"

#include <cerrno>
#include <cstdio>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

namespace host_access {
namespace {

// process_vm_readv names the process by pid. getpid() is a system call of
// its own on every glibc since 2.25, so the pid is kept, and taken again in
// a forked child: a stale pid would read the parent's memory.
pid_t self_pid() {
    static pid_t pid = [] {
        pthread_atfork(nullptr, nullptr, [] { pid = getpid(); });
        return getpid();
    }();
    return pid;
}

// A refusal other than EFAULT means the check itself is unavailable (a
// seccomp filter, say): every DMA then fails, so say why, once.
void unavailable(const char *call) {
    static bool said = false;
    if (!said && errno != EFAULT) {
        said = true;
        std::fprintf(stderr, "rnic_sim: %s cannot check host memory (errno %d): every DMA is refused\n", call,
                     errno);
    }
}

constexpr size_t kIovMax = 1024;   // UIO_MAXIOV: what one call takes

}  // namespace

uint64_t page_size() {
    static const uint64_t size = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    return size;
}

bool read(uint64_t va, void *dst, size_t n) {
    if (n == 0)
        return true;
    iovec local{dst, n};
    iovec remote{reinterpret_cast<void *>(static_cast<uintptr_t>(va)), n};
    // Both sides are this process: the kernel copies, and where a load
    // would fault it stops and answers EFAULT (or a short count).
    const ssize_t got = process_vm_readv(self_pid(), &local, 1, &remote, 1, 0);
    if (got < 0)
        unavailable("process_vm_readv");
    return got == static_cast<ssize_t>(n);
}

bool readable(uint64_t va, uint64_t n) {
    if (n == 0)
        return true;
    if (va + n < va)
        return false;
    const uint64_t page = page_size();
    const uint64_t last = (va + n - 1) & ~(page - 1);
    uint8_t sink[kIovMax];
    iovec remote[kIovMax];
    // One byte of each page says whether the page can be read: pages are
    // the kernel's unit of protection.
    uint64_t at = va;
    bool all = false;
    while (!all) {
        size_t k = 0;
        while (k < kIovMax && !all) {
            remote[k++] = iovec{reinterpret_cast<void *>(static_cast<uintptr_t>(at)), 1};
            all = (at & ~(page - 1)) == last;
            at = (at & ~(page - 1)) + page;
        }
        iovec local{sink, k};
        const ssize_t got = process_vm_readv(self_pid(), &local, 1, remote, k, 0);
        if (got < 0)
            unavailable("process_vm_readv");
        if (got != static_cast<ssize_t>(k))
            return false;
    }
    return true;
}

bool writable(uint64_t va, uint64_t n) {
    if (n == 0)
        return true;
    if (va + n < va)
        return false;
    const uint64_t page = page_size();
    const uint64_t last = (va + n - 1) & ~(page - 1);
    // FUTEX_WAKE_OP adds 0 to a word of the page atomically (and wakes
    // nobody): the kernel takes the write fault the CPU would, answers
    // EFAULT where the page cannot be written, and no byte changes, even
    // under a store another thread makes at the same moment. The word is
    // the aligned one holding the page's first byte of the range.
    static uint32_t nobody_waits;
    for (uint64_t at = va;; at = (at & ~(page - 1)) + page) {
        auto *word = reinterpret_cast<uint32_t *>(static_cast<uintptr_t>(at & ~uint64_t{3}));
        const long r = syscall(SYS_futex, &nobody_waits, FUTEX_WAKE_OP_PRIVATE, 0, nullptr, word,
                               FUTEX_OP(FUTEX_OP_ADD, 0, FUTEX_OP_CMP_EQ, 0));
        if (r < 0) {
            unavailable("futex");
            return false;
        }
        if ((at & ~(page - 1)) == last)
            return true;
    }
}

}  // namespace host_access
