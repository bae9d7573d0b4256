/* Shared declarations of the native monitor's files (monitor.c is the main program). */
#ifndef VLT_MONITOR_H
#define VLT_MONITOR_H

#include <stddef.h>
#include <sys/types.h>

enum level { LOG_INFO, LOG_WARNING, LOG_ERROR };

/* log.c: JSON lines with KubeVirt's keys on stdout, written whole with one write(2). */
void set_verbosity(int v);
int verbosity_at_least(int v);
void log_at(enum level level, const char *file, int line, const char *msg, const char *reason);
#define log_line(level, line, msg, reason) log_at(level, __FILE__, line, msg, reason)
const char *signal_name(int sig);
/* Orphans: 20 lines per 1 s window, the rest counted into one summary line. */
void reaplog_record(pid_t pid, int status);
void reaplog_tick(void);
void reaplog_flush(void);

/* args.c */
struct options {
  char **argv; /* COMMAND and its arguments, NULL-terminated */
  int keep_after_failure;
  const char *container_disk_dir;
  int verbosity;
  int verbosity_set;
  long qemu_stop_timeout_ms;
};
extern const char USAGE_TEXT[];
int wants_help(int argc, char **argv);
int parse_args(int argc, char **argv, struct options *o, char *error, size_t cap);
const char *resolve_verbosity(struct options *o);
char **env_without_inspector(int verbosity);

/* monitor.c */
int reap_all(void);
void wait_signals(int ms);

/* shutdown.c */
void raise_ambient_capability(int cap, int verbosity);
void dump_logs(const char *passt_log, const char *qemu_log_dir);
int stop_qemu(long timeout_ms);
void remove_container_disk_sockets(const char *dir);

/* istio.c */
void stop_istio(const char *ready_url, const char *quit_url);

#endif
