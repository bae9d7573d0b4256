/*
 * container-disk: the process that keeps a containerDisk container alive.
 *
 * virt-controller copies this file out of the launcher image (init container) into the user's disk
 * image, which is often built FROM scratch: hence plain C, linked statically, no runtime needed.
 *
 * Contract (see ../README.md):
 *   container-disk --copy-path PATH   listen on PATH.sock until that file is removed or SIGTERM arrives
 *   container-disk --no-op            exit 0 at once (used to check that the copied binary runs)
 *   container-disk -h | --help        usage on stdout, exit 0
 * Exit codes: 0 on removal of the socket file, on SIGTERM/SIGINT and for --no-op/--help; 1 on bad
 * flags or when the socket cannot be made.
 *
 * virt-handler only checks that the socket exists and accepts; connections carry no data, so each
 * one is closed as soon as it is accepted (an un-drained backlog would eventually refuse dials).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* sun_path holds 108 bytes: the path, ".sock" and the terminating NUL. */
#define SOCK_SUFFIX ".sock"
#define MAX_COPY_PATH (sizeof(((struct sockaddr_un *)0)->sun_path) - sizeof(SOCK_SUFFIX))
#define BACKLOG 50
/* How often the socket file's presence is re-checked when nothing connects. */
#define CHECK_INTERVAL_MS 1000

static volatile sig_atomic_t stop_requested = 0;

static void on_stop_signal(int signo) {
    (void)signo;
    stop_requested = 1;
}

static void fail(const char *format, ...) {
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm_utc;
    va_list ap;

    gmtime_r(&now, &tm_utc);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm_utc);
    fprintf(stderr, "%s container-disk: error: ", stamp);
    va_start(ap, format);
    vfprintf(stderr, format, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void usage(FILE *out) {
    fprintf(out,
            "Usage: container-disk --copy-path PATH | --no-op | --help\n"
            "  -c, --copy-path PATH  listen on PATH" SOCK_SUFFIX " until that file is removed or SIGTERM\n"
            "                        (PATH at most %zu characters; its directory is created if missing)\n"
            "      --no-op           exit 0 immediately\n"
            "  -h, --help            this text\n",
            MAX_COPY_PATH);
}

/* Creates the last directory of the copy path if it is missing, as the mount point may be empty. */
static int ensure_parent_dir(const char *copy_path) {
    char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
    struct stat st;
    char *slash;

    snprintf(dir, sizeof(dir), "%s", copy_path);
    slash = strrchr(dir, '/');
    if (slash == NULL) return 0;
    if (slash == dir) return 0;
    *slash = '\0';
    if (stat(dir, &st) == 0) return 0;
    if (mkdir(dir, 0777) != 0) {
        fail("failed to create disk directory %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

static int open_listener(const char *sock_path) {
    struct sockaddr_un addr;
    int fd;

    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock_path);

    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd == -1) {
        fail("failed to create socket %s: %s", sock_path, strerror(errno));
        return -1;
    }
    if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) == -1) {
        fail("failed to bind socket %s: %s", sock_path, strerror(errno));
        close(fd);
        return -1;
    }
    if (listen(fd, BACKLOG) == -1) {
        fail("failed to listen on socket %s: %s", sock_path, strerror(errno));
        close(fd);
        unlink(sock_path);
        return -1;
    }
    return fd;
}

/* Closes every queued connection; returns -1 on an accept error other than "queue empty". */
static int drain_connections(int fd) {
    for (;;) {
        int conn = accept(fd, NULL, NULL);
        if (conn >= 0) {
            close(conn);
            continue;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return 0;
        fail("failed to accept connections on the socket: %s", strerror(errno));
        return -1;
    }
}

static int serve(int fd, const char *sock_path) {
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    struct stat st;

    while (!stop_requested) {
        int ready = poll(&pfd, 1, CHECK_INTERVAL_MS);
        if (stop_requested) break;
        if (ready < 0 && errno != EINTR) {
            fail("poll failed: %s", strerror(errno));
            return 1;
        }
        /* The removal of the socket file is the shutdown signal that works on every runtime. */
        if (stat(sock_path, &st) == -1) {
            fail("socket %s does not exist anymore", sock_path);
            return 0;
        }
        if (ready > 0 && drain_connections(fd) != 0) return 1;
    }
    unlink(sock_path);
    return 0;
}

int main(int argc, char **argv) {
    static const struct option long_opts[] = {
        {"copy-path", required_argument, NULL, 'c'},
        {"no-op", no_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    const char *copy_path = NULL;
    struct sigaction sa;
    int opt, fd;

    while ((opt = getopt_long(argc, argv, "c:h", long_opts, NULL)) != -1) {
        switch (opt) {
        case 'c':
            copy_path = optarg;
            break;
        case 'n':
            return 0;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 1;
        }
    }
    if (optind < argc) {
        fail("unexpected argument %s", argv[optind]);
        return 1;
    }
    if (copy_path == NULL || copy_path[0] == '\0') {
        fail("--copy-path is required");
        return 1;
    }
    if (strlen(copy_path) > MAX_COPY_PATH) {
        fail("--copy-path can not be longer than %zu characters, got %zu", MAX_COPY_PATH, strlen(copy_path));
        return 1;
    }

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0) {
        fail("failed to register the SIGTERM handler");
        return 1;
    }

    if (ensure_parent_dir(copy_path) != 0) return 1;
    snprintf(sock_path, sizeof(sock_path), "%s" SOCK_SUFFIX, copy_path);
    fd = open_listener(sock_path);
    if (fd < 0) return 1;
    return serve(fd, sock_path);
}
