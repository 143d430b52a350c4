/* gregord: load the configuration, lock the data directory, open the broker, run the event
 * loop until SIGTERM/SIGINT, then shut down cleanly (flush and close every log).
 *
 * Every start-up failure is one line on stderr ("gregord: ..." naming the key, the value and
 * the reason) and exit status 2 (command line, configuration) or 1 (anything at run time):
 * never a signal. docs/operations.md describes the signals, defaults and log levels. */
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/dirlock.h"
#include "base/log.h"
#include "broker/broker.h"
#include "gregor/gregor.h"
#include "meta/meta.h"
#include "net/conn.h"
#include "net/loop.h"
#include "server/admin.h"
#include "server/config.h"

#define EXIT_RUNTIME 1
#define EXIT_CONFIG  2

#define STR_(x)         #x
#define STR(x)          STR_(x)
#define GREGORD_VERSION STR(GR_VERSION_MAJOR) "." STR(GR_VERSION_MINOR) "." STR(GR_VERSION_PATCH)

static gr_loop_t *g_loop; /* for the signal handler only */

static void on_signal(int sig) {
    (void)sig;
    if (g_loop) gr_loop_stop(g_loop);
}

/* One line on stderr, escaped like a log line (values come from files and the command line). */
static void __attribute__((format(printf, 1, 2))) say_error(const char *fmt, ...) {
    char raw[2048], esc[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof(raw) ? (size_t)n : sizeof(raw) - 1;
    gr_log_escape(esc, sizeof(esc), raw, len);
    fprintf(stderr, "gregord: %s\n", esc);
}

/* Every segment keeps a file descriptor open: raise the soft limit to the hard one. */
static void raise_fd_limit(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) GR_WARN("server", "cannot raise the open-file limit");
    }
}

static void usage(FILE *f) {
    fprintf(f, "usage: gregord [--config server.properties] [--override key=value ...]\n"
               "       gregord server.properties [--override key=value ...]\n"
               "       gregord --version | --help\n"
               "Starts the Gregor broker. Configuration keys are Apache Kafka's (docs/configuration.md);\n"
               "defaults, signals and logging: docs/operations.md.\n"
               "admin.listener=HOST:PORT (e.g. --override admin.listener=127.0.0.1:9644) serves GET /metrics\n"
               "(Prometheus) and GET /health over HTTP, without authentication; empty (default) = off.\n");
}

typedef struct args {
    const char *config;
    const char **ovr;
    int n_ovr;
} args_t;

/* 0: run; -1: exit 0 (--help, --version); 1: bad command line (reported). */
static int parse_args(int argc, char **argv, args_t *a) {
    a->ovr = calloc((size_t)argc, sizeof(char *));
    if (!a->ovr) abort();
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            usage(stdout);
            return -1;
        } else if (!strcmp(s, "--version") || !strcmp(s, "-V")) {
            printf("gregord %s\n", GREGORD_VERSION);
            return -1;
        } else if ((!strcmp(s, "--config") || !strcmp(s, "-c") || !strcmp(s, "--override")) && !has_value) {
            say_error("option %s needs a value (see gregord --help)", s);
            return 1;
        } else if (!strcmp(s, "--config") || !strcmp(s, "-c") || s[0] != '-') {
            const char *path = s[0] == '-' ? argv[++i] : s;
            if (a->config) {
                say_error("more than one configuration file ('%s', '%s'); use --override key=value", a->config, path);
                return 1;
            }
            a->config = path;
        } else if (!strcmp(s, "--override")) {
            a->ovr[a->n_ovr++] = argv[++i];
        } else {
            say_error("unknown argument '%s' (see gregord --help)", s);
            return 1;
        }
    }
    return 0;
}

/* GREGOR_LOG (if set) wins over log.level: one run can be made verbose without editing the file.
 * 1: set, 0: not set, -1: invalid (reported). */
static int env_log_level(gr_log_level_t *lvl) {
    const char *env = getenv("GREGOR_LOG");
    if (!env || !*env) return 0;
    if (gr_log_level_parse(env, lvl)) {
        say_error("configuration error: Invalid value %s for environment variable GREGOR_LOG: "
                  "must be one of error, warn, info, debug",
                  env);
        return -1;
    }
    return 1;
}

static bool wildcard_host(const char *h) { return !h[0] || !strcmp(h, "0.0.0.0") || !strcmp(h, "::"); }

static const char *dir_key(const gr_server_config_t *cfg) {
    return gr_props_get(&cfg->raw, "log.dirs") ? "log.dirs" : "log.dir";
}

/* What a careful operator wants to see first: where the data goes and who can connect. */
static void report_start(const gr_server_config_t *cfg) {
    char abs[PATH_MAX], cwd[PATH_MAX];
    const char *dir = cfg->log_dir;
    if (realpath(dir, abs)) /* not yet there on a first start: then relative to the working directory */
        dir = abs;
    else if (dir[0] != '/' && getcwd(cwd, sizeof(cwd)) &&
             snprintf(abs, sizeof(abs), "%s/%s", cwd, dir + 2 * !strncmp(dir, "./", 2)) < (int)sizeof(abs))
        dir = abs;
    GR_INFO("server", "data directory %s (%s%s)", dir, dir_key(cfg), cfg->log_dir_is_default ? ", default" : "");
    if (cfg->log_dir_is_default)
        GR_WARN("server",
                "using Kafka's default data directory %s: /tmp may be emptied at reboot, and every broker "
                "started without log.dirs shares it; set log.dirs to keep the data",
                cfg->log_dir);
    static const char *const proto[] = {"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"};
    for (size_t i = 0; i < cfg->n_listeners; i++) {
        const gr_listener_config_t *l = &cfg->listeners[i];
        bool v6 = strchr(l->host, ':') != NULL;
        if (l->port)
            GR_INFO("server", "listener %s://%s%s%s:%u (%s), advertised to clients as %s:%u", l->name, v6 ? "[" : "",
                    l->host, v6 ? "]" : "", l->port, proto[l->sec_proto], l->adv_host,
                    l->adv_port ? l->adv_port : l->port);
        else
            GR_INFO("server", "listener %s://%s%s%s:0 (%s; a free port, logged once bound), advertised host %s",
                    l->name, v6 ? "[" : "", l->host, v6 ? "]" : "", proto[l->sec_proto], l->adv_host);
        if (wildcard_host(l->host) && l->sec_proto == 0)
            GR_WARN("server",
                    "listening on all network interfaces%s without authentication or encryption (PLAINTEXT): anyone "
                    "who can reach port %u can read, write and delete topics; set listeners=PLAINTEXT://127.0.0.1:%u "
                    "(or a private address) to restrict",
                    gr_props_get(&cfg->raw, "listeners") ? "" : " (the default listeners=PLAINTEXT://:9092)", l->port,
                    l->port);
    }
}

static int load_config(const args_t *a, gr_server_config_t *cfg) {
    char errstr[1024];
    gr_err_t err = gr_server_config_load(cfg, a->config, a->ovr, a->n_ovr, errstr, sizeof(errstr));
    if (!err) {
        /* Keystores, truststores, key passwords and SASL mechanisms are checked now: refused before
         * any data is opened. */
        err = gr_broker_check_tls(cfg, errstr, sizeof(errstr));
        if (err && gr_meta_has_dynamic_tls(cfg->log_dir)) { /* stored overrides win: checked at listener set-up */
            GR_WARN("server", "%s (stored dynamic listener.name.*.ssl.* settings may replace it: checked later)",
                    errstr);
            err = GR_ERR_NONE;
        }
        if (!err && !(err = gr_broker_check_sasl(cfg, errstr, sizeof(errstr)))) return 0;
        gr_server_config_free(cfg);
    }
    if (err == GR_ERR__IO || err == GR_ERR__MALFORMED)
        say_error("configuration error: cannot load the configuration file %s", errstr);
    else
        say_error("configuration error: %s", errstr);
    return EXIT_CONFIG;
}

/* Before the broker: /health answers 503 "starting" while the logs are recovered. */
static int open_admin(const gr_server_config_t *cfg, gr_admin_t **admin) {
    char errstr[512];
    *admin = NULL;
    if (!cfg->admin_listener) return 0;
    if (gr_admin_open(g_loop, cfg->admin_host, cfg->admin_port, GREGORD_VERSION, admin, errstr, sizeof(errstr))) {
        say_error("cannot start: admin.listener=%s: %s", cfg->admin_listener, errstr);
        return EXIT_RUNTIME;
    }
    return 0;
}

static int serve(gr_server_config_t *cfg) {
    char errstr[1024];
    gr_dirlock_t *lock = NULL;
    gr_admin_t *admin = NULL;
    /* Before anything in the directory is opened: a second broker must not touch it. */
    if (gr_dirlock_acquire(cfg->log_dir, &lock, errstr, sizeof(errstr))) {
        say_error("cannot start: %s=%s: %s", dir_key(cfg), cfg->log_dir, errstr);
        return EXIT_RUNTIME;
    }
    raise_fd_limit();
    if (gr_loop_new(&g_loop, errstr, sizeof(errstr))) {
        say_error("cannot start: %s", errstr);
        gr_dirlock_release(lock);
        return EXIT_RUNTIME;
    }
    /* Before the broker opens: a SIGTERM during a long start-up stops it right after. */
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    gr_broker_t *b = NULL;
    int rc = open_admin(cfg, &admin);
    if (!rc && gr_broker_new_ex(g_loop, cfg, admin ? gr_admin_progress : NULL, admin, &b, errstr, sizeof(errstr))) {
        say_error("cannot start: %s", errstr);
        rc = EXIT_RUNTIME;
    }
    if (rc) {
        gr_admin_close(admin);
        gr_loop_free(g_loop);
        g_loop = NULL;
        gr_dirlock_release(lock);
        return rc;
    }
    gr_admin_serving(admin, b);
    gr_err_t err = gr_loop_run(g_loop);
    GR_INFO("server", "shutting down");
    gr_admin_shutting_down(admin);
    gr_broker_free(b);
    gr_admin_close(admin); /* after the data is closed: until then /health says "shutting down" */
    gr_loop_free(g_loop);
    g_loop = NULL;
    gr_dirlock_release(lock); /* last: the data is closed */
    GR_INFO("server", "stopped");
    return err ? EXIT_RUNTIME : 0;
}

int main(int argc, char **argv) {
    /* Logs go to stderr (no file to reopen): SIGHUP, sent when a terminal or an ssh session
     * closes, must not stop the broker. */
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    args_t a = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc) {
        free(a.ovr);
        return rc < 0 ? 0 : EXIT_CONFIG;
    }
    gr_log_level_t env_lvl = GR_LOG_INFO;
    int from_env = env_log_level(&env_lvl);
    if (from_env < 0) {
        free(a.ovr);
        return EXIT_CONFIG;
    }
    gr_log_set_level(env_lvl);
    GR_INFO("server", "gregord %s starting (pid %ld)", GREGORD_VERSION, (long)getpid());
    gr_server_config_t cfg;
    rc = load_config(&a, &cfg);
    free(a.ovr);
    if (rc) return rc;
    if (!from_env) gr_log_set_level((gr_log_level_t)cfg.log_level);
    gr_log_set_limit_burst(cfg.log_client_errors_per_window);
    report_start(&cfg);
    rc = serve(&cfg);
    gr_server_config_free(&cfg);
    return rc;
}
