/*
 * The connection manager's wire messages (sent and read by cm_conn.c).
 *
 * Every message is a 48-byte header, little-endian, then private data:
 *   0  magic "DCM1"        4  type   5  rd_in  6  rd_out  7  reason
 *   8  pdata length (u16)  10 mac[6]
 *   16 sender (u64)        24 conn_qual (u64)
 *   32 qpn (u32)  36 psn (u32)  40 ipv4 (u32)  44 reserved
 * REQ (active -> passive): the requester's ipv4, mac, PSN, READ limits and
 * private data. REP (passive -> active): the responder's QP, PSN, address,
 * READ limits and private data. RTU (active -> passive): the requester's QP
 * now that its READ limit is settled. REJ: reason. DISC, BROKEN: the
 * connection is gone.
 */
#ifndef LIBDAT_CM_WIRE_H
#define LIBDAT_CM_WIRE_H

#include <stdint.h>

#include "dat_internal.h"

#define CM_MAGIC 0x314D4344u   /* "DCM1" */
#define CM_HDR_BYTES 48u
#define CM_MSG_MAX (CM_HDR_BYTES + DAT_RNIC_MAX_PDATA)

enum cm_type { CM_REQ = 1, CM_REP, CM_REJ, CM_RTU, CM_DISC, CM_BROKEN };
enum cm_reject { CM_REJ_CONSUMER = 0, CM_REJ_NO_SERVICE = 1 };

struct cm_msg {
    uint8_t type, rd_in, rd_out, reason;
    uint16_t pdata_len;
    uint8_t mac[6];
    uint64_t sender, conn_qual;   /* sender: the sending process's id, for whoever reads a capture */
    uint32_t qpn, psn, ipv4;
    uint8_t pdata[DAT_RNIC_MAX_PDATA];
};

size_t cm_msg_pack(const struct cm_msg *m, uint8_t *out);
/* Bytes of a complete message at the start of buf, 0 if more are needed,
 * -1 if the bytes are not a message. */
long cm_msg_unpack(const uint8_t *buf, size_t len, struct cm_msg *m);

#endif
