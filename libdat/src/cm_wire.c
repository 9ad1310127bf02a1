/* Connection manager messages: explicit little-endian packing. */
#include <string.h>

#include "cm_wire.h"

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}
static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

size_t cm_msg_pack(const struct cm_msg *m, uint8_t *out)
{
    memset(out, 0, CM_HDR_BYTES);
    put32(out, CM_MAGIC);
    out[4] = m->type;
    out[5] = m->rd_in;
    out[6] = m->rd_out;
    out[7] = m->reason;
    put16(out + 8, m->pdata_len);
    memcpy(out + 10, m->mac, 6);
    put64(out + 16, m->sender);
    put64(out + 24, m->conn_qual);
    put32(out + 32, m->qpn);
    put32(out + 36, m->psn);
    put32(out + 40, m->ipv4);
    memcpy(out + CM_HDR_BYTES, m->pdata, m->pdata_len);
    return CM_HDR_BYTES + m->pdata_len;
}

long cm_msg_unpack(const uint8_t *buf, size_t len, struct cm_msg *m)
{
    if (len < CM_HDR_BYTES)
        return 0;
    uint16_t pd = get16(buf + 8);
    if (get32(buf) != CM_MAGIC || buf[4] < CM_REQ || buf[4] > CM_BROKEN || pd > DAT_RNIC_MAX_PDATA)
        return -1;
    if (len < CM_HDR_BYTES + pd)
        return 0;
    m->type = buf[4];
    m->rd_in = buf[5];
    m->rd_out = buf[6];
    m->reason = buf[7];
    m->pdata_len = pd;
    memcpy(m->mac, buf + 10, 6);
    m->sender = get64(buf + 16);
    m->conn_qual = get64(buf + 24);
    m->qpn = get32(buf + 32);
    m->psn = get32(buf + 36);
    m->ipv4 = get32(buf + 40);
    memcpy(m->pdata, buf + CM_HDR_BYTES, pd);
    return (long)(CM_HDR_BYTES + pd);
}
