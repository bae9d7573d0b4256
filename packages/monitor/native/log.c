/* The native monitor's log: one JSON object per line with KubeVirt's keys (component, level, msg, pos,
 * timestamp, and reason on failures), the same lines src/log.ts writes. Each line goes out in one write(2) so a
 * line is never split, and errors writing are ignored: logging must never take PID 1 down. */
#define _GNU_SOURCE
#include "monitor.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_BYTES 8192
#define REAP_LINES_PER_WINDOW 20
#define REAP_WINDOW_MS 1000

static int verbosity = 2;

void set_verbosity(int v) { verbosity = v; }
int verbosity_at_least(int v) { return verbosity >= v; }

static size_t escape(char *out, size_t cap, const char *s) {
  size_t n = 0;
  for (; *s && n + 7 < cap; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      out[n++] = '\\';
      out[n++] = (char)c;
    } else if (c < 0x20) {
      n += (size_t)snprintf(out + n, cap - n, "\\u%04x", c);
    } else {
      out[n++] = (char)c;
    }
  }
  out[n] = '\0';
  return n;
}

void log_at(enum level level, const char *file, int line, const char *msg, const char *reason) {
  static const char *names[] = {"info", "warning", "error"};
  static char buf[LINE_MAX_BYTES * 2 + 512];
  static char esc[LINE_MAX_BYTES];
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char stamp[40];
  size_t s = strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(stamp + s, sizeof stamp - s, ".%03ldZ", ts.tv_nsec / 1000000);
  const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  escape(esc, sizeof esc, msg);
  int n = snprintf(buf, sizeof buf, "{\"component\":\"virt-launcher-monitor\",\"level\":\"%s\",\"msg\":\"%s\","
                   "\"pos\":\"%s:%d\",\"timestamp\":\"%s\"", names[level], esc, base, line, stamp);
  if (reason) {
    escape(esc, sizeof esc, reason);
    n += snprintf(buf + n, sizeof buf - (size_t)n, ",\"reason\":\"%s\"", esc);
  }
  n += snprintf(buf + n, sizeof buf - (size_t)n, "}\n");
  size_t off = 0;
  while (off < (size_t)n) {
    ssize_t w = write(1, buf + off, (size_t)n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    off += (size_t)w;
  }
}

const char *signal_name(int sig) {
  static char other[16];
  switch (sig) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGKILL: return "SIGKILL";
    case SIGUSR1: return "SIGUSR1";
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    default: snprintf(other, sizeof other, "signal %d", sig); return other;
  }
}

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static long window_start = -1000000;
static int logged_in_window = 0;
static long suppressed = 0;

void reaplog_flush(void) {
  if (suppressed == 0) return;
  char msg[160];
  snprintf(msg, sizeof msg, "Reaped %ld more orphans, not logged one by one (at most %d lines per window)",
           suppressed, REAP_LINES_PER_WINDOW);
  log_line(LOG_INFO, __LINE__, msg, NULL);
  suppressed = 0;
}

/* Called at least once a second by the wait loop: a window that ended gets its summary even with no new orphan. */
void reaplog_tick(void) {
  if (suppressed > 0 && now_ms() - window_start >= REAP_WINDOW_MS) reaplog_flush();
}

void reaplog_record(pid_t pid, int status) {
  long now = now_ms();
  if (now - window_start >= REAP_WINDOW_MS) {
    reaplog_flush();
    window_start = now;
    logged_in_window = 0;
  }
  if (logged_in_window >= REAP_LINES_PER_WINDOW) {
    suppressed++;
    return;
  }
  logged_in_window++;
  char msg[128];
  if (WIFEXITED(status)) {
    snprintf(msg, sizeof msg, "Reaped pid %d with status %d (exit code %d)", pid, status, WEXITSTATUS(status));
  } else {
    snprintf(msg, sizeof msg, "Reaped pid %d with status %d (signal %d)", pid, status, WTERMSIG(status));
  }
  log_line(LOG_INFO, __LINE__, msg, NULL);
}
