/* BAR0 through the C ABI: opening NICs by name, identity registers, one
 * fabric cycle per access whatever its outcome, an unknown or misaligned
 * offset latching STATUS.BAD_REG with the offset in ERR_ADDR, an offset
 * outside the BAR reading as all ones, and waiting on a quiet interrupt
 * line. */
#include <stddef.h>

#include "rnic_sim.h"
#include "rnic_test.h"

/* An offset the register map leaves unused, between the identity block and the table registers. */
#define UNKNOWN_REG 0x0080u

int main(void) {
    rnic_sim_dev *d0, *d1, *bad;
    CHECK_EQ(rnic_sim_open("rnic0", &d0), 0);
    CHECK_EQ(rnic_sim_open("rnic1", &d1), 0);
    CHECK_EQ(rnic_sim_open("rnic2", &bad), -1);
    CHECK_EQ(rnic_sim_open("rnic01", &bad), -1);
    CHECK_EQ(rnic_sim_open("rnic", &bad), -1);
    CHECK_EQ(rnic_sim_open("eth0", &bad), -1);
    CHECK_EQ(rnic_sim_open(NULL, &bad), -1);
    CHECK_EQ(rnic_sim_num_nics(), 2);
    CHECK_EQ(rnic_sim_index(d0), 0);
    CHECK_EQ(rnic_sim_index(d1), 1);

    /* Identity, and each access is exactly one cycle of the whole fabric. */
    uint64_t c0 = rnic_sim_cycle();
    CHECK_EQ(rnic_sim_bar_read32(d0, RNIC_REG_ID), RNIC_DEVICE_ID);
    CHECK_EQ(rnic_sim_cycle(), c0 + 1);
    CHECK_EQ(rnic_sim_bar_read32(d1, RNIC_REG_ID), RNIC_DEVICE_ID);
    CHECK_EQ(rnic_sim_bar_read32(d0, RNIC_REG_VERSION), RNIC_VERSION);
    CHECK_EQ(rnic_sim_bar_read32(d1, RNIC_REG_VERSION), RNIC_VERSION);
    CHECK_EQ(rnic_sim_cycle(), c0 + 4);
    rnic_sim_bar_write32(d0, RNIC_REG_IPV4, 0x0A000001u);
    CHECK_EQ(rnic_sim_cycle(), c0 + 5);
    CHECK_EQ(rnic_sim_bar_read32(d0, RNIC_REG_IPV4), 0x0A000001u);
    rnic_sim_advance(10);
    CHECK_EQ(rnic_sim_cycle(), c0 + 16);
    rnic_sim_advance(0);
    CHECK_EQ(rnic_sim_cycle(), c0 + 16);

    /* The free-running counter moves with the fabric: two reads of CYCLE_LO
     * 100 cycles apart (plus the first read's own cycle) differ by 101. */
    uint32_t t0 = rnic_sim_bar_read32(d0, RNIC_REG_CYCLE_LO);
    rnic_sim_advance(100);
    CHECK_EQ(rnic_sim_bar_read32(d0, RNIC_REG_CYCLE_LO) - t0, 101);

    /* An unknown register: reads 0, latches BAD_REG and the offset; rnic1 is untouched. */
    rnic_sim_bar_write32(d0, RNIC_REG_STATUS, 0xFFFFFFFFu);   /* write 1 to clear */
    CHECK_EQ(rnic_sim_bar_read32(d0, RNIC_REG_STATUS) & RNIC_STATUS_BAD_REG_MASK, 0);
    uint64_t c1 = rnic_sim_cycle();
    CHECK_EQ(rnic_sim_bar_read32(d0, UNKNOWN_REG), 0);
    CHECK_EQ(rnic_sim_cycle(), c1 + 1);
    CHECK(rnic_sim_bar_read32(d0, RNIC_REG_STATUS) & RNIC_STATUS_BAD_REG_MASK);
    CHECK_EQ(rnic_sim_bar_read32(d0, RNIC_REG_ERR_ADDR), UNKNOWN_REG);
    CHECK_EQ(rnic_sim_bar_read32(d1, RNIC_REG_STATUS) & RNIC_STATUS_BAD_REG_MASK, 0);
    rnic_sim_bar_write32(d0, RNIC_REG_STATUS, RNIC_STATUS_BAD_REG_MASK);
    CHECK_EQ(rnic_sim_bar_read32(d0, RNIC_REG_STATUS) & RNIC_STATUS_BAD_REG_MASK, 0);

    /* A write to an unknown register is latched the same way. */
    rnic_sim_bar_write32(d1, UNKNOWN_REG + 4, 0x1234u);
    CHECK(rnic_sim_bar_read32(d1, RNIC_REG_STATUS) & RNIC_STATUS_BAD_REG_MASK);
    CHECK_EQ(rnic_sim_bar_read32(d1, RNIC_REG_ERR_ADDR), UNKNOWN_REG + 4);
    rnic_sim_bar_write32(d1, RNIC_REG_STATUS, RNIC_STATUS_BAD_REG_MASK);

    /* Misaligned: the RTL judges it (BAD_REG), still one cycle. */
    c1 = rnic_sim_cycle();
    CHECK_EQ(rnic_sim_bar_read32(d0, RNIC_REG_VERSION + 1), 0);
    CHECK_EQ(rnic_sim_cycle(), c1 + 1);
    CHECK(rnic_sim_bar_read32(d0, RNIC_REG_STATUS) & RNIC_STATUS_BAD_REG_MASK);
    rnic_sim_bar_write32(d0, RNIC_REG_STATUS, RNIC_STATUS_BAD_REG_MASK);

    /* Outside the 64 KiB BAR: all ones, the NIC never sees it, still one cycle. */
    c1 = rnic_sim_cycle();
    CHECK_EQ(rnic_sim_bar_read32(d0, 0x10000u), 0xFFFFFFFFu);
    rnic_sim_bar_write32(d0, 0x10014u, 0xFFFFFFFFu);
    CHECK_EQ(rnic_sim_cycle(), c1 + 2);
    CHECK_EQ(rnic_sim_bar_read32(d0, RNIC_REG_STATUS) & RNIC_STATUS_BAD_REG_MASK, 0);

    /* No interrupt pending: wait_irq runs its whole budget. */
    CHECK_EQ(rnic_sim_bar_read32(d0, RNIC_REG_INTR_STATUS_N(0)), 0);
    c1 = rnic_sim_cycle();
    CHECK_EQ(rnic_sim_wait_irq(d0, 250), 250);
    CHECK_EQ(rnic_sim_cycle(), c1 + 250);
    CHECK_EQ(rnic_sim_wait_irq(d0, 0), 0);
    CHECK_EQ(rnic_sim_cycle(), c1 + 250);

    /* A null device is refused without touching the fabric. */
    c1 = rnic_sim_cycle();
    CHECK_EQ(rnic_sim_bar_read32(NULL, RNIC_REG_ID), 0xFFFFFFFFu);
    CHECK_EQ(rnic_sim_wait_irq(NULL, 10), 0);
    CHECK_EQ(rnic_sim_cycle(), c1);
    rnic_sim_close(d0);
    rnic_sim_close(d1);
    return rnic_test_finish("test_bar");
}
