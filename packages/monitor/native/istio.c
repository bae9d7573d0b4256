/* Asks an istio-proxy sidecar to exit once the launcher is done (src/istio.ts explains the steps and the one
 * deliberate difference from KubeVirt: a refused readiness connection means "no sidecar" at once). A minimal
 * HTTP/1.0 client: the URLs are loopback ones (localhost or an IP literal) the pod itself defines. */
#define _GNU_SOURCE
#include "monitor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const int BACKOFF_MS[] = {50, 250, 1250, 6250};
#define ATTEMPTS ((int)(sizeof BACKOFF_MS / sizeof BACKOFF_MS[0]))

struct answer {
  int status;
  int envoy;
};

/* Returns 0 with *a filled, or an errno (ECONNREFUSED, ECONNRESET, ETIMEDOUT, EINVAL for a bad URL). */
static int request(const char *url, const char *method, struct answer *a) {
  char host[256], path[1024] = "/";
  int port = 80;
  if (strncmp(url, "http://", 7) != 0) return EINVAL;
  const char *h = url + 7, *slash = strchr(h, '/');
  size_t hlen = slash ? (size_t)(slash - h) : strlen(h);
  if (hlen >= sizeof host) return EINVAL;
  memcpy(host, h, hlen);
  host[hlen] = '\0';
  if (slash) snprintf(path, sizeof path, "%s", slash);
  char *colon = host[0] == '[' ? strstr(host, "]:") : strrchr(host, ':');
  if (colon) {
    port = atoi(colon + (host[0] == '[' ? 2 : 1));
    *(host[0] == '[' ? colon + 1 : colon) = '\0';
  }
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  socklen_t len;
  char bare[256];
  snprintf(bare, sizeof bare, "%s", host[0] == '[' ? host + 1 : host);
  if (bare[0] && bare[strlen(bare) - 1] == ']') bare[strlen(bare) - 1] = '\0';
  struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
  struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
  if (strcmp(bare, "localhost") == 0 || inet_pton(AF_INET, bare, &in4->sin_addr) == 1) {
    if (strcmp(bare, "localhost") == 0) in4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    in4->sin_family = AF_INET;
    in4->sin_port = htons((uint16_t)port);
    len = sizeof *in4;
  } else if (inet_pton(AF_INET6, bare, &in6->sin6_addr) == 1) {
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons((uint16_t)port);
    len = sizeof *in6;
  } else {
    return EINVAL;
  }
  int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  struct timeval tv = {2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (connect(fd, (struct sockaddr *)&ss, len) != 0) {
    int err = errno;
    close(fd);
    return err;
  }
  char req[1400];
  int n = snprintf(req, sizeof req, "%s %s HTTP/1.0\r\nHost: %s\r\nContent-Length: 0\r\n\r\n", method, path, host);
  if (write(fd, req, (size_t)n) != n) {
    int err = errno ? errno : EIO;
    close(fd);
    return err;
  }
  char buf[8192];
  size_t got = 0;
  for (;;) {
    ssize_t r = read(fd, buf + got, sizeof buf - 1 - got);
    if (r < 0) {
      int err = errno == EAGAIN ? ETIMEDOUT : errno;
      close(fd);
      return err;
    }
    if (r == 0) break;
    got += (size_t)r;
    if (got >= sizeof buf - 1) break;
  }
  close(fd);
  buf[got] = '\0';
  if (sscanf(buf, "HTTP/%*s %d", &a->status) != 1) return ECONNRESET;
  a->envoy = 0;
  for (char *line = strstr(buf, "\r\n"); line && line[2] != '\r'; line = strstr(line + 2, "\r\n")) {
    if (strncasecmp(line + 2, "server:", 7) != 0) continue;
    const char *v = line + 9;
    while (*v == ' ') v++;
    a->envoy = strncmp(v, "envoy", 5) == 0 && (v[5] == '\r' || v[5] == '\0');
  }
  return 0;
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static int present(const char *ready_url) {
  for (int i = 0; i < ATTEMPTS; i++) {
    struct answer a;
    int err = request(ready_url, "GET", &a);
    if (err == 0) return a.envoy;
    if (err != ECONNRESET) return 0; /* refused: nothing listens, no sidecar */
    sleep_ms(BACKOFF_MS[i]);
  }
  return 0;
}

void stop_istio(const char *ready_url, const char *quit_url) {
  if (!present(ready_url ? ready_url : "http://localhost:15021/healthz/ready")) return;
  const char *url = quit_url ? quit_url : "http://localhost:15020/quitquitquit";
  int err = 0;
  for (int i = 0; i < ATTEMPTS; i++) {
    struct answer a;
    err = request(url, "POST", &a);
    if (err == 0 && a.status != 503) {
      if (a.status != 200) {
        char msg[64];
        snprintf(msg, sizeof msg, "status code received: %d", a.status);
        log_line(LOG_INFO, __LINE__, msg, NULL);
      }
      return;
    }
    if (err != 0 && err != ECONNREFUSED && err != ECONNRESET) break;
    sleep_ms(BACKOFF_MS[i]);
  }
  char msg[256];
  snprintf(msg, sizeof msg, "all attempts to terminate istio-proxy failed: %s",
           err ? strerror(err) : "istio-proxy answered 503");
  log_line(LOG_ERROR, __LINE__, msg, NULL);
}
