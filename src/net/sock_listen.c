/* Listening sockets (see sock_listen.h). */
#include "net/sock_listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int gr_net_listen(const char *host, uint16_t port, int backlog, char *errstr, size_t errstr_size) {
    struct addrinfo hints = {
        .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    char service[8];
    snprintf(service, sizeof(service), "%u", port);
    int rc = getaddrinfo(host && *host ? host : NULL, service, &hints, &res);
    if (rc) {
        snprintf(errstr, errstr_size, "resolve %s: %s", host ? host : "", gai_strerror(rc));
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, backlog) == 0) break;
        snprintf(errstr, errstr_size, "bind/listen %s:%u: %s", host && *host ? host : "*", port, strerror(errno));
        close(fd);
        fd = -1;
    }
    if (fd < 0 && !res) snprintf(errstr, errstr_size, "no address for %s", host && *host ? host : "*");
    freeaddrinfo(res);
    return fd;
}

uint16_t gr_net_bound_port(int fd) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) return 0;
    if (ss.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&ss)->sin_port);
    if (ss.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return 0;
}
