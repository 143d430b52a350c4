#include "base/err.h"

#include <stdarg.h>
#include <stdio.h>

const char *gr_err_name(gr_err_t err) {
    switch (err) {
#define GR__ERR_NAME(name, code, str) \
    case GR_ERR_##name: return #name;
        GR_ERR_MAP(GR__ERR_NAME)
#undef GR__ERR_NAME
    }
    return "UNKNOWN";
}

const char *gr_err_str(gr_err_t err) {
    switch (err) {
#define GR__ERR_STR(name, code, str) \
    case GR_ERR_##name: return str;
        GR_ERR_MAP(GR__ERR_STR)
#undef GR__ERR_STR
    }
    return "unknown error";
}

gr_err_t gr_err_fmt(gr_err_t err, char *errstr, size_t errstr_size, const char *fmt, ...) {
    if (errstr && errstr_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(errstr, errstr_size, fmt, ap);
        va_end(ap);
    }
    return err;
}
