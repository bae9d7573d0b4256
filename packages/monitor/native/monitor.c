/*
 * virt-launcher-monitor, native: PID 1 of the compute container without a JavaScript engine.
 *
 * A Node process costs ~40 MiB RSS before any code runs; this process lives as long as the VM and only spawns,
 * reaps, forwards signals and cleans up, so it is plain C (flags, messages and exit codes are those of
 * src/monitor.ts, which documents each step; the src tests run against this executable).
 *
 * Signals: the handled ones get a no-op handler (as PID 1 a signal without a handler is discarded) and are
 * blocked from the first statement, then read from a signalfd. A SIGTERM that arrives before COMMAND exists
 * stays pending and is delivered once it does.
 */
#define _GNU_SOURCE
#include "monitor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#define SIGNALLED_EXIT_CODE 255
#define CAP_NET_BIND_SERVICE 10
/* 100 ms polls for orphans still exiting when the monitor is about to exit. */
#define ORPHAN_GRACE_POLLS 10

static int sigfd = -1;
static sigset_t handled;
static pid_t child = -1;
static int child_status = -1;

static void noop(int sig) { (void)sig; }

static void install_signals(void) {
  static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGCHLD};
  sigemptyset(&handled);
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaddset(&handled, sigs[i]);
  sigprocmask(SIG_BLOCK, &handled, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = noop;
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &sa, NULL);
  sigfd = signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* Reaps every exited child; COMMAND's status is kept, every other one is an orphan to log. Returns 1 while some
 * child is still alive. */
int reap_all(void) {
  for (;;) {
    int status;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return pid == 0;
    if (pid == child) {
      child_status = status;
      continue;
    }
    reaplog_record(pid, status);
  }
}

static void signal_child(int sig) {
  log_line(LOG_INFO, __LINE__, "signalling virt-launcher to shut down", NULL);
  if (child_status >= 0 || kill(child, SIGTERM) != 0) {
    char msg[128];
    snprintf(msg, sizeof msg, "received signal %s but can't signal virt-launcher to shut down", signal_name(sig));
    log_line(LOG_ERROR, __LINE__, msg, NULL);
  }
}

/* Reads every pending signal. Before COMMAND exists, termination signals are counted in *held. */
static void drain_signals(int *held, char *held_names, size_t cap) {
  struct signalfd_siginfo info;
  while (read(sigfd, &info, sizeof info) == (ssize_t)sizeof info) {
    int sig = (int)info.ssi_signo;
    if (sig == SIGCHLD) {
      reap_all();
    } else if (sig == SIGUSR1) {
      log_line(LOG_WARNING, __LINE__, "ignored SIGUSR1: this process opens no debugger on a signal", NULL);
    } else if (child < 0 && held) {
      if (*held > 0) strncat(held_names, ", ", cap - strlen(held_names) - 1);
      strncat(held_names, signal_name(sig), cap - strlen(held_names) - 1);
      (*held)++;
    } else if (child > 0) {
      signal_child(sig);
    }
  }
}

/* Waits up to ms for a signal and handles it. */
void wait_signals(int ms) {
  struct pollfd p = {.fd = sigfd, .events = POLLIN};
  if (poll(&p, 1, ms) > 0) drain_signals(NULL, NULL, 0);
  reaplog_tick();
}

/* Spawns COMMAND; errno of a failed exec comes back through a close-on-exec pipe. Returns 0 or that errno. */
static int spawn_command(char **argv, char **env, struct options *o) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return errno;
  pid_t pid = fork();
  if (pid < 0) return errno;
  if (pid == 0) {
    sigprocmask(SIG_UNBLOCK, &handled, NULL);
    raise_ambient_capability(CAP_NET_BIND_SERVICE, o->verbosity);
    execvpe(argv[0], argv, env);
    int err = errno;
    ssize_t w = write(pipefd[1], &err, sizeof err);
    (void)w;
    _exit(127);
  }
  close(pipefd[1]);
  int err = 0;
  ssize_t n;
  do n = read(pipefd[0], &err, sizeof err);
  while (n < 0 && errno == EINTR);
  close(pipefd[0]);
  if (n == (ssize_t)sizeof err) {
    waitpid(pid, NULL, 0);
    return err;
  }
  child = pid;
  return 0;
}

/* Runs COMMAND to its end; returns its exit code (255 when a signal killed it) or -1 when it could not start. */
static int run_command(struct options *o) {
  int held = 0;
  char held_names[128] = "";
  drain_signals(&held, held_names, sizeof held_names);
  char **env = env_without_inspector(o->verbosity);
  int err = spawn_command(o->argv, env, o);
  if (err != 0) {
    char reason[512];
    snprintf(reason, sizeof reason, "failed to run %s: spawn %s %s", o->argv[0], o->argv[0], strerror(err));
    log_line(LOG_ERROR, __LINE__, "failed to run virt-launcher", reason);
    return -1;
  }
  if (held > 0) {
    char msg[192];
    snprintf(msg, sizeof msg, "received %s before virt-launcher started: delivering it now", held_names);
    log_line(LOG_INFO, __LINE__, msg, NULL);
    signal_child(SIGTERM);
  }
  while (child_status < 0) {
    wait_signals(1000);
    reap_all();
  }
  log_line(LOG_INFO, __LINE__, "Reaped Launcher main pid", NULL);
  int code = WIFEXITED(child_status) ? WEXITSTATUS(child_status) : SIGNALLED_EXIT_CODE;
  char msg[128];
  if (WIFSIGNALED(child_status)) {
    snprintf(msg, sizeof msg, "dirty virt-launcher shutdown: exit-code -1 (killed by %s)",
             signal_name(WTERMSIG(child_status)));
    log_line(LOG_INFO, __LINE__, msg, NULL);
  } else if (code != 0) {
    snprintf(msg, sizeof msg, "dirty virt-launcher shutdown: exit-code %d", code);
    log_line(LOG_INFO, __LINE__, msg, NULL);
  }
  return code;
}

int main(int argc, char **argv) {
  install_signals();
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 && getpid() != 1) {
    log_line(LOG_WARNING, __LINE__, "could not become a child subreaper", strerror(errno));
  }
  struct options o;
  if (wants_help(argc - 1, argv + 1)) {
    fputs(USAGE_TEXT, stdout);
    return 0;
  }
  char error[256] = "";
  if (parse_args(argc - 1, argv + 1, &o, error, sizeof error) != 0) {
    log_line(LOG_ERROR, __LINE__, "monitoring virt-launcher failed", error);
    return 1;
  }
  const char *warning = resolve_verbosity(&o);
  set_verbosity(o.verbosity);
  if (warning) log_line(LOG_WARNING, __LINE__, warning, NULL);

  int code = run_command(&o);
  int failed = code < 0;
  if (failed) code = 1;
  if (!failed) {
    dump_logs(getenv("VIRT_LAUNCHER_MONITOR_PASST_LOG"), getenv("VIRT_LAUNCHER_MONITOR_QEMU_LOG_DIR"));
    if (stop_qemu(o.qemu_stop_timeout_ms)) code = 1;
  }
  stop_istio(getenv("VIRT_LAUNCHER_MONITOR_ISTIO_READY_URL"), getenv("VIRT_LAUNCHER_MONITOR_ISTIO_QUIT_URL"));
  remove_container_disk_sockets(o.container_disk_dir);
  reaplog_flush();
  if (o.keep_after_failure && code != 0) {
    log_line(LOG_INFO, __LINE__, "keeping virt-launcher container alive since --keep-after-failure is set to true",
             NULL);
    for (;;) {
      wait_signals(1000);
      reap_all();
    }
  }
  /* Orphans that were exiting with COMMAND get a moment to be reaped and logged (bounded: as PID 1 the namespace
   * ends with us anyway, and a subreaper's living descendants go back to their init). */
  for (int i = 0; i < ORPHAN_GRACE_POLLS && reap_all(); i++) wait_signals(100);
  reaplog_flush();
  log_line(LOG_INFO, __LINE__, "virt-launcher-monitor: Exiting...", NULL);
  return code;
}
