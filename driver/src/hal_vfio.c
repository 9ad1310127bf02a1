/* The `vfio` backend: a real board behind the kernel's VFIO. BAR0 is
 * mmapped; every DMA mapping is an IOMMU mapping with IOVA = VA, the same
 * addressing the simulation uses; the interrupt (MSI vector 0) arrives on
 * an eventfd. It cannot run without a device; it must fail cleanly. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/vfio.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

struct vfio_ctx {
    int container, group, device, irq_fd;
    volatile uint32_t *bar;
    size_t bar_size;
    unsigned index;
};

static uint32_t v_rd(void *c, uint32_t off) {
    struct vfio_ctx *v = c;
    return off + 4 <= v->bar_size ? v->bar[off / 4] : 0xFFFFFFFFu;
}

static void v_wr(void *c, uint32_t off, uint32_t val) {
    struct vfio_ctx *v = c;
    if (off + 4 <= v->bar_size)
        v->bar[off / 4] = val;
}

static int v_map(void *c, void *va, size_t len) {
    struct vfio_ctx *v = c;
    struct vfio_iommu_type1_dma_map m = {
        .argsz = sizeof(m),
        .flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
        .vaddr = (uint64_t)(uintptr_t)va,
        .iova = (uint64_t)(uintptr_t)va,
        .size = len,
    };
    return ioctl(v->container, VFIO_IOMMU_MAP_DMA, &m) == 0 ? 0 : -1;
}

static int v_unmap(void *c, void *va, size_t len) {
    struct vfio_ctx *v = c;
    struct vfio_iommu_type1_dma_unmap u = {.argsz = sizeof(u), .iova = (uint64_t)(uintptr_t)va, .size = len};
    return ioctl(v->container, VFIO_IOMMU_UNMAP_DMA, &u) == 0 ? 0 : -1;
}

/* x86 DMA is cache-coherent (the root complex snoops the CPU caches), so a
 * sync has nothing to flush or invalidate. A non-coherent host (some Arm
 * boards) would do its cache maintenance here, through a kernel driver:
 * VFIO has no call for it. */
static int v_sync(void *c, const void *va, size_t len, int dir) {
    (void)c;
    (void)va;
    (void)len;
    (void)dir;
    return 0;
}

/* The board's clock is taken as 250 MHz to turn a cycle budget into time. */
static uint64_t v_wait(void *c, uint64_t max_cycles) {
    struct vfio_ctx *v = c;
    uint64_t ms = max_cycles / 250000u;
    struct pollfd p = {.fd = v->irq_fd, .events = POLLIN};
    if (poll(&p, 1, ms > INT_MAX ? INT_MAX : (int)ms) > 0) {
        uint64_t n;
        if (read(v->irq_fd, &n, sizeof(n)) < 0)
            return 0;
    }
    return 0;
}

static unsigned v_index(void *c) { return ((struct vfio_ctx *)c)->index; }

static int v_event_fd(void *c) { return ((struct vfio_ctx *)c)->irq_fd; }

static void v_close(void *c) {
    struct vfio_ctx *v = c;
    if (v->bar)
        munmap((void *)v->bar, v->bar_size);
    if (v->irq_fd >= 0)
        close(v->irq_fd);
    if (v->device >= 0)
        close(v->device);
    if (v->group >= 0)
        close(v->group);
    if (v->container >= 0)
        close(v->container);
    free(v);
}

static const struct rnic_hal_ops vfio_ops = {
    .name = "vfio",
    .bar_read32 = v_rd,
    .bar_write32 = v_wr,
    .dma_map = v_map,
    .dma_unmap = v_unmap,
    .wait = v_wait,
    .index = v_index,
    .close = v_close,
    .dma_sync = v_sync,   /* coherent host: coherency and set_coherency stay NULL */
    .event_fd = v_event_fd,   /* time runs alone and is read over the BAR: now, runs_alone stay NULL */
};

/* Every step names itself, what it worked on and errno's text: on a board
 * the fix differs for each (load vfio-pci, bind the function, fix the
 * group's permissions, enable the IOMMU), and RNIC_E_NODEV says none of it.
 * The reason is recorded before any cleanup, which may change errno. */

static int group_of(const char *bdf) {
    char link[PATH_MAX], target[PATH_MAX];
    snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s/iommu_group", bdf);
    ssize_t n = readlink(link, target, sizeof(target) - 1);
    if (n < 0) {
        rnic_open_fail("sysfs iommu_group lookup: readlink %s: %s (no such PCI function, or no IOMMU for it)", link,
                       strerror(errno));
        return -1;
    }
    target[n] = '\0';
    const char *slash = strrchr(target, '/');
    char *end = NULL;
    const long g = slash ? strtol(slash + 1, &end, 10) : -1;
    if (!slash || end == slash + 1 || *end || g < 0 || g > INT_MAX) {
        rnic_open_fail("sysfs iommu_group lookup: %s points to %s, which names no group number", link, target);
        return -1;
    }
    return (int)g;
}

static int setup_irq(struct vfio_ctx *v, const char *bdf) {
    v->irq_fd = eventfd(0, EFD_CLOEXEC);
    if (v->irq_fd < 0) {
        rnic_open_fail("eventfd for the MSI of %s: %s", bdf, strerror(errno));
        return -1;
    }
    char buf[sizeof(struct vfio_irq_set) + sizeof(int32_t)];
    struct vfio_irq_set *s = (struct vfio_irq_set *)buf;
    s->argsz = sizeof(buf);
    s->flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
    s->index = VFIO_PCI_MSI_IRQ_INDEX;
    s->start = 0;
    s->count = 1;
    int32_t fd = v->irq_fd;
    memcpy(s->data, &fd, sizeof(fd));
    if (ioctl(v->device, VFIO_DEVICE_SET_IRQS, s) != 0) {
        rnic_open_fail("VFIO_DEVICE_SET_IRQS (MSI vector 0 to an eventfd) on %s: %s", bdf, strerror(errno));
        return -1;
    }
    return 0;
}

int rnic_hal_open_vfio(const char *name, struct rnic_hal *out) {
    const char *bdf = name + 5;   /* after "vfio:" */
    int gnum = group_of(bdf);
    if (gnum < 0)
        return RNIC_E_NODEV;
    struct vfio_ctx *v = calloc(1, sizeof(*v));
    if (!v) {
        rnic_open_fail("out of host memory for the vfio backend's state of %s", bdf);
        return RNIC_E_NOMEM;
    }
    v->container = v->group = v->device = v->irq_fd = -1;
    v->index = 0;
    char path[64];
    snprintf(path, sizeof(path), "/dev/vfio/%d", gnum);
    struct vfio_group_status gs = {.argsz = sizeof(gs)};
    struct vfio_region_info ri = {.argsz = sizeof(ri), .index = VFIO_PCI_BAR0_REGION_INDEX};
    v->container = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
    if (v->container < 0) {
        rnic_open_fail("open /dev/vfio/vfio (the VFIO container) for %s: %s", bdf, strerror(errno));
        goto fail;
    }
    const int api = ioctl(v->container, VFIO_GET_API_VERSION);
    if (api != VFIO_API_VERSION) {
        rnic_open_fail("VFIO_GET_API_VERSION on /dev/vfio/vfio: %d (%s), this driver needs %d", api,
                       api < 0 ? strerror(errno) : "another API", VFIO_API_VERSION);
        goto fail;
    }
    v->group = open(path, O_RDWR | O_CLOEXEC);
    if (v->group < 0) {
        rnic_open_fail("open %s (IOMMU group of %s): %s", path, bdf, strerror(errno));
        goto fail;
    }
    if (ioctl(v->group, VFIO_GROUP_GET_STATUS, &gs) != 0) {
        rnic_open_fail("VFIO_GROUP_GET_STATUS on %s (IOMMU group of %s): %s", path, bdf, strerror(errno));
        goto fail;
    }
    if (!(gs.flags & VFIO_GROUP_FLAGS_VIABLE)) {
        rnic_open_fail("IOMMU group %d of %s is not viable: every device in /sys/kernel/iommu_groups/%d/devices "
                       "must be bound to vfio-pci or to no driver",
                       gnum, bdf, gnum);
        goto fail;
    }
    if (ioctl(v->group, VFIO_GROUP_SET_CONTAINER, &v->container) != 0) {
        rnic_open_fail("VFIO_GROUP_SET_CONTAINER (%s into /dev/vfio/vfio) for %s: %s", path, bdf, strerror(errno));
        goto fail;
    }
    if (ioctl(v->container, VFIO_SET_IOMMU, VFIO_TYPE1_IOMMU) != 0) {
        rnic_open_fail("VFIO_SET_IOMMU (type 1) on /dev/vfio/vfio for %s: %s", bdf, strerror(errno));
        goto fail;
    }
    v->device = ioctl(v->group, VFIO_GROUP_GET_DEVICE_FD, bdf);
    if (v->device < 0) {
        rnic_open_fail("VFIO_GROUP_GET_DEVICE_FD %s on %s: %s", bdf, path, strerror(errno));
        goto fail;
    }
    if (ioctl(v->device, VFIO_DEVICE_GET_REGION_INFO, &ri) != 0) {
        rnic_open_fail("VFIO_DEVICE_GET_REGION_INFO (BAR0) of %s: %s", bdf, strerror(errno));
        goto fail;
    }
    if (ri.size < 0x10000) {
        rnic_open_fail("VFIO_DEVICE_GET_REGION_INFO: BAR0 of %s is %llu bytes, the RNIC's registers need 65536", bdf,
                       (unsigned long long)ri.size);
        goto fail;
    }
    v->bar_size = ri.size;
    void *bar = mmap(NULL, ri.size, PROT_READ | PROT_WRITE, MAP_SHARED, v->device, (off_t)ri.offset);
    if (bar == MAP_FAILED) {
        rnic_open_fail("mmap of BAR0 of %s (%llu bytes): %s", bdf, (unsigned long long)ri.size, strerror(errno));
        goto fail;
    }
    v->bar = bar;
    if (setup_irq(v, bdf) != 0)
        goto fail;
    out->ops = &vfio_ops;
    out->ctx = v;
    return RNIC_OK;
fail:
    v_close(v);
    return RNIC_E_NODEV;
}
