#include "base/err.h"

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
