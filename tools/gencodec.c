/* gencodec: compile our message definitions (src/proto/defs/NAME.def) into C.
 *
 *   gencodec OUTDIR file.def...
 *
 * writes OUTDIR/proto_msgs.h (one struct per message and nested struct, the
 * api key enum, extern descriptors) and OUTDIR/proto_msgs.c (descriptor tables
 * built with offsetof/sizeof, plus the api key lookup tables). The notation is
 * described in docs/codec.md. Errors name the file and line and exit 1.
 *
 * This is a build tool: it allocates freely and never frees, and exits on the
 * first error, because a half-generated codec is worse than none. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define VER_INF   0x7fff
#define MAX_DEPTH 16

typedef struct gstruct gstruct_t;

typedef struct gfield {
    char *name, *type; /* type without "[]" */
    bool is_array, is_struct, ignorable, noflex, has_def;
    int vmin, vmax, nmin, nmax, tmin, tmax;
    long tag;
    char *def; /* default as written, or NULL */
    gstruct_t *sub;
    const char *file;
    int line;
} gfield_t;

struct gstruct {
    char *name;  /* Kafka struct name, or the message name for a body */
    char *cname; /* gr_<Message>[_<Struct>] */
    gfield_t *f;
    int nf, cap;
    bool defined; /* has its own field list (not just a reference) */
    const char *file;
    int line;
};

typedef struct gmsg {
    char *name, *kind;
    int api, vmin, vmax, flexmin;
    gstruct_t *body;
    gstruct_t **st; /* every named struct of this message */
    int nst, capst;
    const char *file;
    int line;
} gmsg_t;

static gmsg_t **g_msgs;
static int g_nmsgs, g_capmsgs;
static const char *g_file;
static int g_line;

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s:%d: error: ", g_file ? g_file : "gencodec", g_line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void *xcalloc(size_t n, size_t sz) {
    void *p = calloc(n ? n : 1, sz);
    if (!p) die("out of memory");
    return p;
}
static void *xrealloc(void *p, size_t sz) {
    p = realloc(p, sz);
    if (!p) die("out of memory");
    return p;
}
static char *xstrdup(const char *s) {
    char *p = strdup(s);
    if (!p) die("out of memory");
    return p;
}
static char *cat3(const char *a, const char *b, const char *c) {
    size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
    char *p = xcalloc(n, 1);
    snprintf(p, n, "%s%s%s", a, b, c);
    return p;
}

static const char *const k_prims[] = {"bool",    "int8", "int16",  "int32", "int64",   "uint16", "uint32",
                                      "float64", "uuid", "string", "bytes", "records", NULL};
static const char *const k_enum[] = {"GR_T_BOOL",  "GR_T_INT8",   "GR_T_INT16",  "GR_T_INT32",
                                     "GR_T_INT64", "GR_T_UINT16", "GR_T_UINT32", "GR_T_FLOAT64",
                                     "GR_T_UUID",  "GR_T_STRING", "GR_T_BYTES",  "GR_T_RECORDS"};
static const char *const k_ctype[] = {"bool",     "int8_t", "int16_t",   "int32_t",  "int64_t",    "uint16_t",
                                      "uint32_t", "double", "gr_uuid_t", "gr_str_t", "gr_bytes_t", "gr_bytes_t"};

static int prim_index(const char *t) {
    for (int i = 0; k_prims[i]; i++)
        if (!strcmp(k_prims[i], t)) return i;
    return -1;
}

static bool is_ident(const char *s) {
    if (!isalpha((unsigned char)*s)) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return false;
    return true;
}

static long parse_num(const char *s, const char *what) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end) die("bad %s '%s'", what, s);
    return v;
}

/* "3+", "0-12", "5" or "none" -> [*lo, *hi]; none is [-1, -1]. */
static void parse_range(const char *s, int *lo, int *hi) {
    char buf[64];
    if (!strcmp(s, "none")) {
        *lo = *hi = -1;
        return;
    }
    if (strlen(s) >= sizeof(buf)) die("bad version range '%s'", s);
    strcpy(buf, s);
    size_t n = strlen(buf);
    if (n && buf[n - 1] == '+') {
        buf[n - 1] = 0;
        *lo = (int)parse_num(buf, "version");
        *hi = VER_INF;
    } else if (strchr(buf, '-')) {
        char *dash = strchr(buf, '-');
        *dash = 0;
        *lo = (int)parse_num(buf, "version");
        *hi = (int)parse_num(dash + 1, "version");
    } else {
        *lo = *hi = (int)parse_num(buf, "version");
    }
    if (*lo < 0 || *hi < *lo || *lo >= VER_INF) die("bad version range '%s'", s);
}

static int split(char *line, char **tok, int max) {
    int n = 0;
    for (char *p = strtok(line, " \t"); p; p = strtok(NULL, " \t")) {
        if (*p == '#') break;
        if (n == max) die("too many words on one line");
        tok[n++] = p;
    }
    return n;
}

static gfield_t *add_field(gstruct_t *s) {
    if (s->nf == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->f = xrealloc(s->f, (size_t)s->cap * sizeof(*s->f));
    }
    gfield_t *f = &s->f[s->nf++];
    memset(f, 0, sizeof(*f));
    return f;
}

static gstruct_t *new_struct(gmsg_t *m, const char *name, bool body) {
    gstruct_t *s = xcalloc(1, sizeof(*s));
    s->name = xstrdup(name);
    s->cname = body ? cat3("gr_", name, "") : cat3("gr_", m->name, cat3("_", name, ""));
    s->file = g_file;
    s->line = g_line;
    if (body) return s;
    for (int i = 0; i < m->nst; i++)
        if (!strcmp(m->st[i]->name, name))
            die("struct %s is defined twice in %s (first at line %d)", name, m->name, m->st[i]->line);
    if (m->nst == m->capst) {
        m->capst = m->capst ? m->capst * 2 : 8;
        m->st = xrealloc(m->st, (size_t)m->capst * sizeof(*m->st));
    }
    m->st[m->nst++] = s;
    return s;
}

static void parse_attr(gfield_t *f, char *a) {
    char *eq = strchr(a, '=');
    if (eq) *eq++ = 0;
    if (!strcmp(a, "ignorable") && !eq)
        f->ignorable = true;
    else if (!strcmp(a, "noflex") && !eq)
        f->noflex = true;
    else if (!strcmp(a, "nullable") && eq)
        parse_range(eq, &f->nmin, &f->nmax);
    else if (!strcmp(a, "tagged") && eq)
        parse_range(eq, &f->tmin, &f->tmax);
    else if (!strcmp(a, "tag") && eq) {
        f->tag = parse_num(eq, "tag");
        if (f->tag < 0 || f->tag > INT32_MAX) die("tag %s out of range", eq);
    } else if (!strcmp(a, "default") && eq) {
        f->def = xstrdup(eq);
        f->has_def = true;
    } else
        die("unknown attribute '%s%s%s' (expected nullable=, tag=, tagged=, default=, ignorable, noflex)", a,
            eq ? "=" : "", eq ? eq : "");
}

static void check_default(gfield_t *f) {
    if (!f->has_def) return;
    const char *d = f->def;
    int pi = prim_index(f->type);
    if (!strcmp(d, "null")) {
        if (f->nmin < 0) die("field %s: default=null needs nullable=", f->name);
        return;
    }
    if (f->is_array || f->is_struct) die("field %s: arrays and structs can only default to null", f->name);
    if (pi == 0 && strcmp(d, "true") && strcmp(d, "false"))
        die("field %s: bool default must be true or false", f->name);
    if (pi >= 1 && pi <= 6) {
        char *end;
        errno = 0;
        (void)strtoll(d, &end, 0);
        if (errno || end == d || *end) die("field %s: bad integer default '%s'", f->name, d);
    }
    if (pi == 7) {
        char *end;
        (void)strtod(d, &end);
        if (end == d || *end) die("field %s: bad float default '%s'", f->name, d);
    }
    if (pi == 9) {
        size_t n = strlen(d);
        if (n < 2 || d[0] != '"' || d[n - 1] != '"' || strchr(d + 1, '"') != d + n - 1 || strchr(d, '\\'))
            die("field %s: string default must be \"quoted\" (no quotes or backslashes inside) or null", f->name);
    }
    if (pi == 8 || pi == 10 || pi == 11) die("field %s: %s fields can only default to null", f->name, f->type);
}

static void parse_field(gfield_t *f, char **tok, int n) {
    if (n < 3) die("a field needs: Name type versions [attributes]");
    if (!is_ident(tok[0])) die("bad field name '%s'", tok[0]);
    f->name = xstrdup(tok[0]);
    const char *t = tok[1];
    if (!strncmp(t, "[]", 2)) {
        f->is_array = true;
        t += 2;
    }
    f->type = xstrdup(t);
    if (prim_index(t) < 0) {
        if (!is_ident(t) || !isupper((unsigned char)*t)) die("unknown type '%s' (struct types start upper case)", t);
        f->is_struct = true;
    }
    parse_range(tok[2], &f->vmin, &f->vmax);
    f->nmin = f->nmax = f->tmin = f->tmax = -1;
    f->tag = -1;
    f->file = g_file;
    f->line = g_line;
    for (int i = 3; i < n; i++) parse_attr(f, tok[i]);
    if ((f->tag >= 0) != (f->tmin >= 0)) die("field %s: tag= and tagged= go together", f->name);
    if (f->noflex && prim_index(t) != 9 && prim_index(t) != 10)
        die("field %s: noflex only applies to strings and bytes", f->name);
    check_default(f);
}

static gmsg_t *parse_message(char **tok, int n) {
    gmsg_t *m = xcalloc(1, sizeof(*m));
    if (n < 5) die("expected: message Name [api=N] request|response|header valid=R flex=R");
    if (!is_ident(tok[1])) die("bad message name '%s'", tok[1]);
    m->name = xstrdup(tok[1]);
    m->api = -1;
    m->flexmin = VER_INF;
    m->file = g_file;
    m->line = g_line;
    bool have_valid = false;
    for (int i = 2; i < n; i++) {
        char *a = tok[i], *eq = strchr(a, '=');
        if (eq) *eq++ = 0;
        if (!eq && (!strcmp(a, "request") || !strcmp(a, "response") || !strcmp(a, "header")))
            m->kind = xstrdup(a);
        else if (eq && !strcmp(a, "api"))
            m->api = (int)parse_num(eq, "api key");
        else if (eq && !strcmp(a, "valid")) {
            int hi;
            parse_range(eq, &m->vmin, &hi);
            if (hi == VER_INF || m->vmin < 0) die("valid= needs a closed range such as 0-5");
            m->vmax = hi;
            have_valid = true;
        } else if (eq && !strcmp(a, "flex")) {
            int lo, hi;
            parse_range(eq, &lo, &hi);
            if (lo >= 0 && hi != VER_INF) die("flex= must be N+ or none");
            m->flexmin = lo >= 0 ? lo : VER_INF;
        } else
            die("unknown message attribute '%s'", a);
    }
    if (!m->kind || !have_valid) die("message %s needs a kind and valid=", m->name);
    if (strcmp(m->kind, "header") && (m->api < 0 || m->api > 32767)) die("message %s needs api=0..32767", m->name);
    m->body = new_struct(m, m->name, true);
    m->body->defined = true;
    return m;
}

static void add_msg(gmsg_t *m) {
    for (int i = 0; i < g_nmsgs; i++) {
        if (!strcmp(g_msgs[i]->name, m->name))
            die("message %s already defined at %s:%d", m->name, g_msgs[i]->file, g_msgs[i]->line);
        if (m->api >= 0 && g_msgs[i]->api == m->api && !strcmp(g_msgs[i]->kind, m->kind))
            die("api key %d already has a %s (%s)", m->api, m->kind, g_msgs[i]->name);
    }
    if (g_nmsgs == g_capmsgs) {
        g_capmsgs = g_capmsgs ? g_capmsgs * 2 : 64;
        g_msgs = xrealloc(g_msgs, (size_t)g_capmsgs * sizeof(*g_msgs));
    }
    g_msgs[g_nmsgs++] = m;
}

/* Struct fields without a field list of their own refer to a struct defined
 * elsewhere in the same message (typically a common struct). */
static void resolve(gmsg_t *m, gstruct_t *s) {
    for (int i = 0; i < s->nf; i++) {
        gfield_t *f = &s->f[i];
        if (!f->is_struct || f->sub) continue;
        for (int j = 0; j < m->nst; j++)
            if (!strcmp(m->st[j]->name, f->type)) f->sub = m->st[j];
        if (!f->sub) {
            g_file = f->file;
            g_line = f->line;
            die("field %s: struct type %s is not defined in %s", f->name, f->type, m->name);
        }
    }
}

static void finish_message(gmsg_t *m) {
    if (!m) return;
    resolve(m, m->body);
    for (int i = 0; i < m->nst; i++) {
        resolve(m, m->st[i]);
        if (!m->st[i]->defined) die("struct %s in %s has no fields", m->st[i]->name, m->name);
    }
    add_msg(m);
}

typedef struct pstate {
    gmsg_t *msg;
    gstruct_t *stack[MAX_DEPTH]; /* stack[k]: the struct whose fields sit at indent 2*(k+1) */
    gfield_t *last[MAX_DEPTH];   /* the last field read into stack[k] */
    int depth;                   /* number of valid stack entries */
    bool in_common;              /* past the first "struct" line of the message */
} pstate_t;

/* "  struct Name versions": a named (common) struct; its fields follow at indent 4. */
static void parse_common(pstate_t *ps, char **tok, int n) {
    if (n != 3 || !is_ident(tok[1]) || !isupper((unsigned char)tok[1][0]))
        die("expected '  struct Name versions' directly under a message");
    int lo, hi;
    parse_range(tok[2], &lo, &hi);
    gstruct_t *s = new_struct(ps->msg, tok[1], false);
    s->defined = true;
    ps->stack[1] = s;
    ps->last[1] = NULL;
    ps->depth = 2;
    ps->in_common = true;
}

static void parse_line(pstate_t *ps, char *line) {
    int indent = 0;
    while (line[indent] == ' ') indent++;
    if (line[indent] == '\t') die("use spaces, not tabs, for indentation");
    char *tok[32];
    int n = split(line + indent, tok, 32);
    if (!n) return;
    if (indent % 2) die("indentation must be a multiple of 2 spaces");
    int d = indent / 2;
    if (d == 0) {
        if (strcmp(tok[0], "message")) die("expected 'message' at column 1, got '%s'", tok[0]);
        finish_message(ps->msg);
        ps->msg = parse_message(tok, n);
        ps->stack[0] = ps->msg->body;
        ps->last[0] = NULL;
        ps->depth = 1;
        ps->in_common = false;
        return;
    }
    if (!ps->msg) die("field outside of a message");
    if (d == 1 && !strcmp(tok[0], "struct")) {
        parse_common(ps, tok, n);
        return;
    }
    if (d == 1 && ps->in_common) die("message fields must come before the first 'struct'");
    if (d - 1 > ps->depth) die("indented too far");
    if (d - 1 == ps->depth) { /* the first child of the previous field: it defines a struct */
        gfield_t *pf = ps->last[d - 2];
        if (!pf || !pf->is_struct || pf->sub) die("only a struct field can have nested fields");
        if (d >= MAX_DEPTH) die("nesting too deep");
        pf->sub = new_struct(ps->msg, pf->type, false);
        pf->sub->defined = true;
        ps->stack[d - 1] = pf->sub;
    }
    ps->depth = d;
    gfield_t *f = add_field(ps->stack[d - 1]);
    parse_field(f, tok, n);
    ps->last[d - 1] = f;
}

static void parse_file(const char *path) {
    FILE *fp = fopen(path, "r");
    g_file = path;
    g_line = 0;
    if (!fp) die("cannot open: %s", strerror(errno));
    pstate_t ps;
    memset(&ps, 0, sizeof(ps));
    char line[4096];
    while (fgets(line, sizeof(line), fp)) {
        g_line++;
        size_t n = strlen(line);
        if (n && line[n - 1] != '\n' && !feof(fp)) die("line too long");
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
        parse_line(&ps, line);
    }
    fclose(fp);
    g_line++;
    finish_message(ps.msg);
}

/* ---- output ---- */

static FILE *g_out;

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(g_out, fmt, ap);
    va_end(ap);
}

static const char *elem_ctype(const gfield_t *f) {
    if (f->is_struct) return cat3(f->sub->cname, "_t", "");
    return k_ctype[prim_index(f->type)];
}

static void emit_struct_def(const gstruct_t *s) {
    out("struct %s {\n", s->cname);
    for (int i = 0; i < s->nf; i++) {
        const gfield_t *f = &s->f[i];
        if (f->is_array)
            out("    struct { %s *v; int32_t n; } %s;\n", elem_ctype(f), f->name);
        else if (f->is_struct)
            out("    %s *%s;\n", elem_ctype(f), f->name);
        else
            out("    %s %s;\n", elem_ctype(f), f->name);
    }
    out("    gr_raw_tags_t _unknown_tags; /* unknown tagged fields, kept for re-encoding */\n};\n\n");
}

static const char *short_api(const gmsg_t *m) {
    size_t n = strlen(m->name), k = strlen(m->kind);
    char *p = xstrdup(m->name);
    if (n > k && !strcasecmp(p + n - k, m->kind)) p[n - k] = 0;
    return p;
}

static void emit_header(void) {
    out("/* generated by tools/gencodec from the .def files in src/proto/defs, do not edit. */\n");
    out("#ifndef GR_PROTO_MSGS_H\n#define GR_PROTO_MSGS_H\n\n#include \"proto/codec.h\"\n\n");
    out("/** Api keys, named after the Kafka API (GR_API_Produce = 0). */\nenum gr_api_key {\n");
    int maxkey = -1;
    for (int i = 0; i < g_nmsgs; i++)
        if (!strcmp(g_msgs[i]->kind, "request")) {
            out("    GR_API_%s = %d,\n", short_api(g_msgs[i]), g_msgs[i]->api);
            if (g_msgs[i]->api > maxkey) maxkey = g_msgs[i]->api;
        }
    out("};\n#define GR_API__MAX %d /* highest api key we define */\n\n", maxkey);
    for (int i = 0; i < g_nmsgs; i++) {
        out("typedef struct %s %s_t;\n", g_msgs[i]->body->cname, g_msgs[i]->body->cname);
        for (int j = 0; j < g_msgs[i]->nst; j++)
            out("typedef struct %s %s_t;\n", g_msgs[i]->st[j]->cname, g_msgs[i]->st[j]->cname);
    }
    out("\n");
    for (int i = 0; i < g_nmsgs; i++) {
        emit_struct_def(g_msgs[i]->body);
        for (int j = 0; j < g_msgs[i]->nst; j++) emit_struct_def(g_msgs[i]->st[j]);
    }
    for (int i = 0; i < g_nmsgs; i++) {
        gmsg_t *m = g_msgs[i];
        out("extern const gr_msg_desc_t %s_desc;\nextern const gr_struct_desc_t %s_sd;\n", m->body->cname,
            m->body->cname);
        for (int j = 0; j < m->nst; j++) out("extern const gr_struct_desc_t %s_sd;\n", m->st[j]->cname);
    }
    out("\n/** Every message descriptor, in definition order (tests, fuzzers). */\n");
    out("extern const gr_msg_desc_t *const gr_msg_descs[];\nextern const int gr_n_msg_descs;\n\n#endif\n");
}

static void emit_range(int lo, int hi) { out("%d, %d, ", lo, hi); }

static void emit_default(const gfield_t *f) {
    int pi = f->is_struct ? -1 : prim_index(f->type);
    if (!f->has_def) {
        if (pi == 9 && !f->is_array) out(".def_str = \"\", ");
        return;
    }
    if (!strcmp(f->def, "null"))
        out(".def_str_null = true, ");
    else if (pi == 0)
        out(".def_int = %d, ", !strcmp(f->def, "true"));
    else if (pi >= 1 && pi <= 6)
        out(".def_int = %lldLL, ", strtoll(f->def, NULL, 0));
    else if (pi == 7)
        out(".def_float = %s, ", f->def);
    else if (pi == 9)
        out(".def_str = %s, ", f->def);
}

static void emit_field(const gstruct_t *s, const gfield_t *f) {
    int pi = f->is_struct ? -1 : prim_index(f->type);
    out("    {\"%s\", %s, %s, %s, ", f->name, f->is_struct ? "GR_T_STRUCT" : k_enum[pi], f->is_array ? "true" : "false",
        f->noflex ? "true" : "false");
    emit_range(f->vmin, f->vmax);
    emit_range(f->nmin, f->nmax);
    emit_range(f->tmin, f->tmax);
    out("%ld, offsetof(%s_t, %s), sizeof(%s), ", f->tag, s->cname, f->name, elem_ctype(f));
    out(f->is_struct ? "&%s_sd, " : "%sNULL, ", f->is_struct ? f->sub->cname : "");
    out(".ignorable = %s, ", f->ignorable ? "true" : "false");
    emit_default(f);
    out("},\n");
}

static void emit_struct_desc(const gstruct_t *s) {
    if (s->nf) {
        out("static const gr_field_desc_t %s_fields[] = {\n", s->cname);
        for (int i = 0; i < s->nf; i++) emit_field(s, &s->f[i]);
        out("};\n");
    }
    out("const gr_struct_desc_t %s_sd = {\"%s\", sizeof(%s_t), %d, %s%s, offsetof(%s_t, _unknown_tags)};\n\n", s->cname,
        s->name, s->cname, s->nf, s->nf ? s->cname : "NULL", s->nf ? "_fields" : "", s->cname);
}

static void emit_lookup(const char *kind) {
    out("const gr_msg_desc_t *gr_api_%s(int16_t api_key) {\n    static const gr_msg_desc_t *const tbl[] = {\n", kind);
    for (int i = 0; i < g_nmsgs; i++)
        if (!strcmp(g_msgs[i]->kind, kind)) out("        [%d] = &%s_desc,\n", g_msgs[i]->api, g_msgs[i]->body->cname);
    out("    };\n    if (api_key < 0 || (size_t)api_key >= sizeof(tbl) / sizeof(tbl[0])) return NULL;\n");
    out("    return tbl[api_key];\n}\n\n");
}

static void emit_source(void) {
    out("/* generated by tools/gencodec from the .def files in src/proto/defs, do not edit. */\n");
    out("#include <stddef.h>\n\n#include \"proto_msgs.h\"\n\n");
    for (int i = 0; i < g_nmsgs; i++) {
        gmsg_t *m = g_msgs[i];
        emit_struct_desc(m->body);
        for (int j = 0; j < m->nst; j++) emit_struct_desc(m->st[j]);
        out("const gr_msg_desc_t %s_desc = {\"%s\", %d, %s, %d, %d, %d, &%s_sd};\n\n", m->body->cname, m->name, m->api,
            !strcmp(m->kind, "request") ? "true" : "false", m->vmin, m->vmax, m->flexmin, m->body->cname);
    }
    out("const gr_msg_desc_t *const gr_msg_descs[] = {\n");
    for (int i = 0; i < g_nmsgs; i++) out("    &%s_desc,\n", g_msgs[i]->body->cname);
    out("};\nconst int gr_n_msg_descs = %d;\n\n", g_nmsgs);
    emit_lookup("request");
    emit_lookup("response");
}

static void write_file(const char *dir, const char *name, void (*fn)(void)) {
    char *path = cat3(dir, "/", name);
    char *tmp = cat3(path, ".tmp", "");
    g_file = path;
    g_line = 0;
    g_out = fopen(tmp, "w");
    if (!g_out) die("cannot write: %s", strerror(errno));
    fn();
    if (fclose(g_out) != 0) die("write failed: %s", strerror(errno));
    if (rename(tmp, path) != 0) die("rename failed: %s", strerror(errno));
}

static int cmp_msg(const void *a, const void *b) {
    const gmsg_t *x = *(gmsg_t *const *)a, *y = *(gmsg_t *const *)b;
    if (x->api != y->api) return x->api < y->api ? -1 : 1;
    return strcmp(x->kind, y->kind);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: gencodec OUTDIR file.def...\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) parse_file(argv[i]);
    /* Sort by api key so the output does not depend on the order of the arguments. */
    qsort(g_msgs, (size_t)g_nmsgs, sizeof(*g_msgs), cmp_msg);
    write_file(argv[1], "proto_msgs.h", emit_header);
    write_file(argv[1], "proto_msgs.c", emit_source);
    return 0;
}
