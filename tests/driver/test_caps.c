/* rnic_query reports the build the NIC is: what the capability registers
 * say, decoded (CAP_TABLE carries log2 of the datapath width and of the MTU,
 * so a 64-byte datapath can be told), against the values the generated
 * header has for this build. Software sizes itself from these (libdat's
 * EP count, the driver's QP table), never from the header. */
#include "rnic_test.h"

int main(void) {
    rnic_dev *d;
    CHECK_EQ(rnic_open("rnic0", &d), RNIC_OK);
    struct rnic_dev_info i;
    CHECK_EQ(rnic_query(d, &i), RNIC_OK);
    CHECK_EQ(i.num_qp, RNIC_NUM_QP);
    CHECK_EQ(i.num_cq, RNIC_NUM_CQ);
    CHECK_EQ(i.pt_entries, RNIC_PT_ENTRIES);
    CHECK_EQ(i.max_sge, RNIC_MAX_SGE);
    CHECK_EQ(i.mtu, RNIC_MTU);
    CHECK_EQ(i.data_bytes, RNIC_DATA_BYTES);
    CHECK_EQ(i.max_rd, RNIC_MAX_RD_ATOMIC);
    CHECK_EQ(i.version, RNIC_VERSION);
    rnic_close(d);
    return rnic_test_finish("test_caps");
}
