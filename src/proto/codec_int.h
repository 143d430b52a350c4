/* Internal helpers shared by codec.c, codec_decode.c and codec_encode.c. */
#ifndef GR_PROTO_CODEC_INT_H
#define GR_PROTO_CODEC_INT_H

#include "proto/codec.h"

/** True if v lies in the inclusive range [lo, hi]; lo == -1 means "never". */
static inline bool gr__in_range(int16_t lo, int16_t hi, int16_t v) { return lo >= 0 && v >= lo && v <= hi; }
static inline bool gr__present(const gr_field_desc_t *f, int16_t v) { return gr__in_range(f->ver_min, f->ver_max, v); }
static inline bool gr__nullable(const gr_field_desc_t *f, int16_t v) {
    return gr__in_range(f->null_min, f->null_max, v);
}
static inline bool gr__tagged(const gr_field_desc_t *f, int16_t v) { return gr__in_range(f->tag_min, f->tag_max, v); }

/** Set one field of obj to its default value. */
void gr__field_init(const gr_field_desc_t *f, void *obj);

#endif
