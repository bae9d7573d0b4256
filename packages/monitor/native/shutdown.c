/* The native monitor's end-of-life steps (src/cleanup.ts and src/qemu.ts describe why each exists): dump the
 * passt and QEMU log files into the monitor's log, SIGTERM a QEMU that outlived the launcher and wait for it
 * (SIGKILL after the grace period), remove container-disk sockets. Also the ambient capability for COMMAND. */
#define _GNU_SOURCE
#include "monitor.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_LINE (512 * 1024)
#define MAX_QEMU 64
#define MAX_PROCS 65536

/* Lets a non-root launcher bind port 67 (DHCP), as KubeVirt's ambient capabilities do; best effort. */
void raise_ambient_capability(int cap, int verbosity) {
  (void)verbosity;
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  memset(data, 0, sizeof data);
  if (syscall(SYS_capget, &header, data) != 0) return;
  data[cap / 32].inheritable |= 1u << (cap % 32);
  if (syscall(SYS_capset, &header, data) != 0) return;
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0);
}

static void dump_file(const char *path) {
  FILE *f = fopen(path, "re");
  if (f == NULL) return; /* a missing file is the normal case */
  char announce[4200];
  snprintf(announce, sizeof announce, "dump log file: %s", path);
  log_line(LOG_INFO, __LINE__, announce, NULL);
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, f)) >= 0) {
    if (n > 0 && line[n - 1] == '\n') line[--n] = '\0';
    if (n > MAX_LINE) line[MAX_LINE] = '\0';
    log_line(LOG_INFO, __LINE__, line, NULL);
  }
  free(line);
  fclose(f);
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }
static int not_dot(const struct dirent *d) { return strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0; }

void dump_logs(const char *passt_log, const char *qemu_log_dir) {
  dump_file(passt_log ? passt_log : "/var/run/kubevirt/passt.log");
  const char *dir = qemu_log_dir ? qemu_log_dir : "/run/kubevirt-private/libvirt/qemu/log";
  struct dirent **names;
  int n = scandir(dir, &names, not_dot, by_name);
  if (n < 0) {
    if (errno != ENOENT) {
      char msg[4200];
      snprintf(msg, sizeof msg, "failed to read qemu log directory %s", dir);
      log_line(LOG_ERROR, __LINE__, msg, strerror(errno));
    }
    return;
  }
  for (int i = 0; i < n; i++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
    dump_file(path);
    free(names[i]);
  }
  free(names);
}

struct proc {
  pid_t pid, ppid;
  char state;
  char comm[32];
};

static int read_stat(pid_t pid, struct proc *p) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
  if (!open_paren || !close_paren || close_paren < open_paren) return -1;
  size_t len = (size_t)(close_paren - open_paren - 1);
  if (len >= sizeof p->comm) len = sizeof p->comm - 1;
  memcpy(p->comm, open_paren + 1, len);
  p->comm[len] = '\0';
  p->pid = pid;
  int ppid;
  if (sscanf(close_paren + 1, " %c %d", &p->state, &ppid) != 2) return -1;
  p->ppid = ppid;
  return 0;
}

static int is_qemu_name(const char *name) {
  return strncmp(name, "qemu-system", 11) == 0 || strcmp(name, "qemu-kvm") == 0;
}

static int argv0_is_qemu(pid_t pid) {
  char path[64], buf[4096];
  snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  const char *base = strrchr(buf, '/');
  return is_qemu_name(base ? base + 1 : buf);
}

/* Live QEMU processes this monitor is responsible for: all of the namespace's as PID 1, else its descendants. */
static int find_qemu(pid_t *out, int max) {
  static struct proc procs[MAX_PROCS];
  int count = 0, found = 0;
  pid_t self = getpid();
  DIR *d = opendir("/proc");
  if (d == NULL) return 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && count < MAX_PROCS) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    if (read_stat((pid_t)pid, &procs[count]) == 0) count++;
  }
  closedir(d);
  for (int i = 0; i < count && found < max; i++) {
    struct proc *p = &procs[i];
    if (p->pid == self || p->state == 'Z' || p->state == 'X') continue;
    if (self != 1) {
      pid_t up = p->ppid;
      int hops = 0;
      while (up > 0 && up != self && hops++ < 4096) {
        pid_t next = 0;
        for (int j = 0; j < count; j++)
          if (procs[j].pid == up) next = procs[j].ppid;
        up = next;
      }
      if (up != self) continue;
    }
    if (is_qemu_name(p->comm) || argv0_is_qemu(p->pid)) out[found++] = p->pid;
  }
  return found;
}

static void pid_list(char *buf, size_t cap, const pid_t *pids, int n) {
  buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    size_t len = strlen(buf);
    snprintf(buf + len, cap - len, "%s%d", i ? "," : "", pids[i]);
  }
}

static long monotonic_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Returns 1 when a QEMU had to be SIGKILLed after the grace period (KubeVirt then exits 1). */
int stop_qemu(long timeout_ms) {
  pid_t pids[MAX_QEMU];
  char list[MAX_QEMU * 12], msg[MAX_QEMU * 12 + 80];
  reap_all();
  int n = find_qemu(pids, MAX_QEMU);
  if (n == 0) return 0;
  pid_list(list, sizeof list, pids, n);
  snprintf(msg, sizeof msg, "Killing QEMU gracefully. pids %s", list);
  log_line(LOG_INFO, __LINE__, msg, NULL);
  for (int i = 0; i < n; i++) kill(pids[i], SIGTERM);
  long deadline = monotonic_ms() + timeout_ms;
  for (;;) {
    reap_all();
    n = find_qemu(pids, MAX_QEMU);
    if (n == 0) return 0;
    if (monotonic_ms() >= deadline) {
      pid_list(list, sizeof list, pids, n);
      snprintf(msg, sizeof msg, "QEMU still alive after grace period, SIGKILL %s", list);
      log_line(LOG_WARNING, __LINE__, msg, NULL);
      for (int i = 0; i < n; i++) kill(pids[i], SIGKILL);
      return 1;
    }
    wait_signals(200);
  }
}

void remove_container_disk_sockets(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL) {
    if (errno != ENOENT) {
      char msg[4200];
      snprintf(msg, sizeof msg, "could not clean up ephemeral disk directory: %s", dir);
      log_line(LOG_ERROR, __LINE__, msg, strerror(errno));
    }
    return;
  }
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 5, ".sock") != 0) continue;
    if (unlinkat(dirfd(d), e->d_name, 0) != 0 && errno == EISDIR) unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
    if (verbosity_at_least(3)) {
      char msg[4400];
      snprintf(msg, sizeof msg, "removed %s/%s", dir, e->d_name);
      log_line(LOG_INFO, __LINE__, msg, NULL);
    }
  }
  closedir(d);
}
