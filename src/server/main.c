/* gregord: load the configuration, open the broker, run the event loop until
 * SIGTERM/SIGINT, then shut down cleanly (flush and close every log). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "base/log.h"
#include "broker/broker.h"
#include "net/loop.h"
#include "server/config.h"

static gr_loop_t *g_loop; /* for the signal handler only */

static void on_signal(int sig) {
    (void)sig;
    if (g_loop) gr_loop_stop(g_loop);
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
    fprintf(f,
            "usage: gregord [--config server.properties] [--override key=value ...]\n"
            "       gregord server.properties [--override key=value ...]\n"
            "Starts the Gregor broker. Configuration keys are Apache Kafka's (docs/configuration.md).\n");
}

static int parse_args(int argc, char **argv, const char **config, const char ***ovr, int *n_ovr) {
    *ovr = calloc((size_t)argc, sizeof(char *));
    if (!*ovr) abort();
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            exit(0);
        } else if ((!strcmp(argv[i], "--config") || !strcmp(argv[i], "-c")) && i + 1 < argc) {
            *config = argv[++i];
        } else if (!strcmp(argv[i], "--override") && i + 1 < argc) {
            (*ovr)[(*n_ovr)++] = argv[++i];
        } else if (argv[i][0] != '-' && !*config) {
            *config = argv[i];
        } else {
            fprintf(stderr, "gregord: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *config_path = NULL;
    const char **ovr;
    int n_ovr = 0;
    const char *lvl = getenv("GREGOR_LOG");
    if (lvl && !strcmp(lvl, "debug")) gr_log_set_level(GR_LOG_DEBUG);
    if (parse_args(argc, argv, &config_path, &ovr, &n_ovr)) return 2;

    char errstr[1024];
    gr_server_config_t cfg;
    if (gr_server_config_load(&cfg, config_path, ovr, n_ovr, errstr, sizeof(errstr))) {
        fprintf(stderr, "gregord: configuration error: %s\n", errstr);
        free(ovr);
        return 2;
    }
    free(ovr);
    signal(SIGPIPE, SIG_IGN);
    raise_fd_limit();
    if (gr_loop_new(&g_loop, errstr, sizeof(errstr))) {
        fprintf(stderr, "gregord: %s\n", errstr);
        return 1;
    }
    gr_broker_t *b;
    if (gr_broker_new(g_loop, &cfg, &b, errstr, sizeof(errstr))) {
        fprintf(stderr, "gregord: cannot start: %s\n", errstr);
        gr_loop_free(g_loop);
        gr_server_config_free(&cfg);
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    gr_err_t err = gr_loop_run(g_loop);
    GR_INFO("server", "shutting down");
    gr_broker_free(b);
    gr_loop_free(g_loop);
    gr_server_config_free(&cfg);
    GR_INFO("server", "stopped");
    return err ? 1 : 0;
}
