/*
 * Handles: a slot table with generations. A handle is
 *   bits 63-32 generation, 31-8 slot, 7-0 a tag
 * so a freed handle (old generation), a handle of another type, or a value
 * that was never a handle is refused without dereferencing anything the
 * consumer handed in.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "dat_internal.h"

static_assert(sizeof(void *) == 8, "handles encode a generation in the upper 32 bits");

struct dat_slot *dat_slots;
uint32_t dat_nslots;
static uint32_t free_head = UINT32_MAX;   /* free slots chain through .gen's neighbour */
static uint32_t *free_next;
static uint32_t cap;

void *dat_zalloc(size_t n)
{
    return calloc(1, n);
}

uint32_t dat_pow2_at_least(uint32_t n)
{
    uint32_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

static bool grow(void)
{
    uint32_t ncap = cap ? cap * 2 : 256;
    if (ncap > (1u << 24))
        return false;
    struct dat_slot *s = realloc(dat_slots, ncap * sizeof(*s));
    if (!s)
        return false;
    dat_slots = s;
    uint32_t *f = realloc(free_next, ncap * sizeof(*f));
    if (!f)
        return false;
    free_next = f;
    cap = ncap;
    return true;
}

DAT_HANDLE dat_handle_new(struct dat_obj *obj, DAT_HANDLE_TYPE type, struct dat_ia *ia)
{
    uint32_t slot;
    if (free_head != UINT32_MAX) {
        slot = free_head;
        free_head = free_next[slot];
    } else {
        if (dat_nslots == cap && !grow())
            return DAT_HANDLE_NULL;
        slot = dat_nslots++;
        dat_slots[slot].gen = 1;
    }
    dat_slots[slot].obj = obj;
    obj->type = type;
    obj->slot = slot;
    obj->ia = ia;
    return dat_handle_of(obj);
}

void dat_handle_release(struct dat_obj *obj)
{
    struct dat_slot *s = &dat_slots[obj->slot];
    s->obj = NULL;
    s->gen++;
    if (s->gen == 0)
        s->gen = 1;
    free_next[obj->slot] = free_head;
    free_head = obj->slot;
}

DAT_HANDLE dat_handle_of(const struct dat_obj *obj)
{
    uintptr_t v = ((uintptr_t)dat_slots[obj->slot].gen << 32) | ((uintptr_t)obj->slot << 8) | DAT_HANDLE_TAG;
    return (DAT_HANDLE)v;
}

struct dat_obj *dat_handle_lookup_any(DAT_HANDLE h)
{
    uintptr_t v = (uintptr_t)h;
    if ((v & 0xFFu) != DAT_HANDLE_TAG)
        return NULL;
    uint32_t slot = (uint32_t)((v >> 8) & 0xFFFFFFu);
    if (slot >= dat_nslots || dat_slots[slot].gen != (uint32_t)(v >> 32))
        return NULL;
    return dat_slots[slot].obj;
}

void dat_ia_link(struct dat_ia *ia, struct dat_obj *obj)
{
    obj->ia_prev = NULL;
    obj->ia_next = ia->objs;
    if (ia->objs)
        ia->objs->ia_prev = obj;
    ia->objs = obj;
}

void dat_ia_unlink(struct dat_obj *obj)
{
    struct dat_ia *ia = obj->ia;
    if (obj->ia_prev)
        obj->ia_prev->ia_next = obj->ia_next;
    else if (ia && ia->objs == obj)
        ia->objs = obj->ia_next;
    if (obj->ia_next)
        obj->ia_next->ia_prev = obj->ia_prev;
    obj->ia_next = obj->ia_prev = NULL;
}

DAT_RETURN dat_set_consumer_context(DAT_HANDLE dat_handle, DAT_CONTEXT context)
{
    DAT_API_LOCK();
    struct dat_obj *o = dat_handle_lookup_any(dat_handle);
    if (!o)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
    o->consumer_context = context;
    return DAT_SUCCESS;
}

DAT_RETURN dat_get_consumer_context(DAT_HANDLE dat_handle, DAT_CONTEXT *context)
{
    DAT_API_LOCK();
    struct dat_obj *o = dat_handle_lookup_any(dat_handle);
    if (!o)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
    if (!context)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    *context = o->consumer_context;
    return DAT_SUCCESS;
}

DAT_RETURN dat_get_handle_type(DAT_HANDLE dat_handle, DAT_HANDLE_TYPE *handle_type)
{
    DAT_API_LOCK();
    struct dat_obj *o = dat_handle_lookup_any(dat_handle);
    if (!o)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
    if (!handle_type)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    *handle_type = o->type;
    return DAT_SUCCESS;
}
