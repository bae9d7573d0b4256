/* The native monitor's command line and environment, the same two forms src/args.ts parses:
 *   explicit:  virt-launcher-monitor [monitor flags] -- COMMAND [ARGS...]   (flags it does not own go after ARGS)
 *   KubeVirt:  virt-launcher-monitor [flags...]   COMMAND is /usr/bin/virt-launcher with every flag but the bare
 *              --keep-after-failure. */
#define _GNU_SOURCE
#include "monitor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

#define DEFAULT_COMMAND "/usr/bin/virt-launcher"
#define DEFAULT_CONTAINER_DISK_DIR "/var/run/kubevirt/container-disks"

const char USAGE_TEXT[] =
    "usage: virt-launcher-monitor [--grace-period-seconds N] [--keep-after-failure] [--container-disk-dir DIR]\n"
    "                             [--qemu-stop-timeout-seconds N] [-v N] -- COMMAND [ARGS...]\n"
    "       virt-launcher-monitor [virt-launcher flags...]        (KubeVirt's form: COMMAND is " DEFAULT_COMMAND ")\n"
    "\n"
    "PID 1 of the virt-launcher pod: runs COMMAND, reaps every orphan (QEMU is re-parented here), forwards SIGTERM,\n"
    "SIGINT, SIGHUP and SIGQUIT to COMMAND as SIGTERM, exits with COMMAND's exit code (255 when it died by a signal),\n"
    "and gives any QEMU still alive SIGTERM and up to 10 s before exiting. Flags it does not own, such as\n"
    "--grace-period-seconds, are passed on to COMMAND.\n";

static int separator(int argc, char **argv) {
  for (int i = 0; i < argc; i++)
    if (strcmp(argv[i], "--") == 0) return i;
  return -1;
}

int wants_help(int argc, char **argv) {
  int sep = separator(argc, argv);
  int end = sep >= 0 ? sep : argc;
  for (int i = 0; i < end; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
  return 0;
}

enum flag { F_NONE, F_KEEP, F_DISK_DIR, F_UID, F_V, F_QEMU_TIMEOUT };

/* Splits "-name" / "--name[=value]"; returns the flag or F_NONE for anything the monitor does not own. */
static enum flag flag_of(const char *arg, const char **inline_value) {
  if (arg[0] != '-') return F_NONE;
  const char *name = arg[1] == '-' ? arg + 2 : arg + 1;
  const char *eq = strchr(name, '=');
  size_t len = eq ? (size_t)(eq - name) : strlen(name);
  *inline_value = eq ? eq + 1 : NULL;
  static const struct { const char *name; enum flag flag; } table[] = {
      {"keep-after-failure", F_KEEP}, {"container-disk-dir", F_DISK_DIR}, {"uid", F_UID},
      {"v", F_V}, {"qemu-stop-timeout-seconds", F_QEMU_TIMEOUT}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strlen(table[i].name) == len && strncmp(table[i].name, name, len) == 0) return table[i].flag;
  return F_NONE;
}

static int parse_number(const char *flag, const char *value, double *out, char *error, size_t cap) {
  char *end;
  double n = strtod(value, &end);
  while (*end == ' ') end++;
  if (*value == '\0' || *end != '\0' || !(n >= 0) || n > 1e12) {
    snprintf(error, cap, "invalid numeric value \"%s\" for --%s", value, flag);
    return -1;
  }
  *out = n;
  return 0;
}

int parse_args(int argc, char **argv, struct options *o, char *error, size_t cap) {
  memset(o, 0, sizeof *o);
  o->verbosity = 2;
  o->qemu_stop_timeout_ms = 10000;
  int sep = separator(argc, argv);
  int explicit = sep >= 0;
  int nflags = explicit ? sep : argc;
  char **pass = calloc((size_t)argc + 2, sizeof *pass);
  int npass = 0;
  const char *disk_dir = NULL, *v = NULL, *timeout = NULL, *keep = NULL;
  int keep_set = 0;
  for (int i = 0; i < nflags; i++) {
    const char *inline_value;
    enum flag f = flag_of(argv[i], &inline_value);
    if (f == F_NONE || (!explicit && f == F_QEMU_TIMEOUT)) {
      pass[npass++] = argv[i];
      continue;
    }
    const char *value = inline_value;
    if (f != F_KEEP && value == NULL) {
      if (i + 1 >= nflags) {
        snprintf(error, cap, "flag needs an argument: %s", argv[i]);
        return -1;
      }
      value = argv[++i];
      if (!explicit) {
        pass[npass++] = argv[i - 1];
        pass[npass++] = argv[i];
      }
    } else if (!explicit && strcmp(argv[i], "--keep-after-failure") != 0) {
      pass[npass++] = argv[i];
    }
    if (f == F_KEEP) keep = value, keep_set = 1;
    if (f == F_DISK_DIR) disk_dir = value;
    if (f == F_V) v = value;
    if (f == F_QEMU_TIMEOUT) timeout = value;
  }
  if (keep_set) {
    if (keep == NULL || strcmp(keep, "true") == 0 || strcmp(keep, "1") == 0) o->keep_after_failure = 1;
    else if (strcmp(keep, "false") == 0 || strcmp(keep, "0") == 0) o->keep_after_failure = 0;
    else {
      snprintf(error, cap, "invalid boolean value \"%s\" for --keep-after-failure", keep);
      return -1;
    }
  }
  double n;
  if (v) {
    if (parse_number("v", v, &n, error, cap) != 0) return -1;
    o->verbosity = (int)n;
    o->verbosity_set = 1;
  }
  if (timeout) {
    if (parse_number("qemu-stop-timeout-seconds", timeout, &n, error, cap) != 0) return -1;
    o->qemu_stop_timeout_ms = (long)(n * 1000);
  }
  const char *env_dir = getenv("VIRT_LAUNCHER_MONITOR_CONTAINER_DISK_DIR");
  o->container_disk_dir = disk_dir ? disk_dir : env_dir ? env_dir : DEFAULT_CONTAINER_DISK_DIR;
  char **cmd = calloc((size_t)argc + 2, sizeof *cmd);
  int ncmd = 0;
  if (explicit) {
    if (sep + 1 >= argc || argv[sep + 1][0] == '\0') {
      snprintf(error, cap, "missing COMMAND after --");
      return -1;
    }
    for (int i = sep + 1; i < argc; i++) cmd[ncmd++] = argv[i];
  } else {
    cmd[ncmd++] = DEFAULT_COMMAND;
  }
  for (int i = 0; i < npass; i++) cmd[ncmd++] = pass[i];
  free(pass);
  o->argv = cmd;
  return 0;
}

/* An integer in VIRT_LAUNCHER_LOG_VERBOSITY wins over -v; anything else there is reported and ignored. */
const char *resolve_verbosity(struct options *o) {
  static char warning[256];
  const char *raw = getenv("VIRT_LAUNCHER_LOG_VERBOSITY");
  if (raw == NULL) return NULL;
  char *end;
  long n = strtol(raw, &end, 10);
  while (*end == ' ') end++;
  if (*raw != '\0' && *raw != ' ' && *end == '\0') {
    o->verbosity = (int)n;
    return NULL;
  }
  snprintf(warning, sizeof warning,
           "failed to set log verbosity. The value of logVerbosity label should be an integer, got %s", raw);
  return warning;
}

/* NODE_OPTIONS words that open a debugger port (or place it), and those whose value may be the next word. */
static int inspector_option(const char *w) {
  static const char *names[] = {"--inspect", "--inspect-brk", "--inspect-wait", "--inspect-port",
                                "--inspect-publish-uid", "--debug-port"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    size_t n = strlen(names[i]);
    if (strncmp(w, names[i], n) == 0 && (w[n] == '\0' || w[n] == '=')) return 1;
  }
  return 0;
}
static int takes_value(const char *w) {
  return strcmp(w, "--inspect-port") == 0 || strcmp(w, "--inspect-publish-uid") == 0 || strcmp(w, "--debug-port") == 0;
}

/* Splits NODE_OPTIONS the way Node does: spaces, "double quotes", backslash escapes inside quotes. */
static int split_words(const char *text, char **words, int max) {
  int n = 0;
  char *word = malloc(strlen(text) + 1);
  size_t len = 0;
  int in_word = 0, quoted = 0;
  for (const char *c = text;; c++) {
    if (*c == '\0' || (*c == ' ' && !quoted)) {
      if (in_word && n < max) words[n++] = strndup(word, len);
      len = 0;
      in_word = 0;
      if (*c == '\0') break;
    } else if (quoted && *c == '\\' && c[1]) {
      word[len++] = *++c;
    } else if (*c == '"') {
      quoted = !quoted;
      in_word = 1;
    } else {
      word[len++] = *c;
      in_word = 1;
    }
  }
  free(word);
  return n;
}

/* The environment for COMMAND: NODE_OPTIONS without the inspector options (each removal is logged). */
char **env_without_inspector(int verbosity) {
  (void)verbosity;
  const char *value = getenv("NODE_OPTIONS");
  if (value == NULL || strchr(value, '-') == NULL) return environ;
  char *words[256];
  int n = split_words(value, words, 256);
  char kept[4096] = "", removed[1024] = "";
  for (int i = 0; i < n; i++) {
    if (!inspector_option(words[i])) {
      int quote = strpbrk(words[i], " \"\\") != NULL || words[i][0] == '\0';
      if (kept[0]) strncat(kept, " ", sizeof kept - strlen(kept) - 1);
      if (quote) strncat(kept, "\"", sizeof kept - strlen(kept) - 1);
      for (const char *c = words[i]; *c; c++) {
        char piece[3] = {*c == '"' || *c == '\\' ? '\\' : *c, *c == '"' || *c == '\\' ? *c : '\0', '\0'};
        strncat(kept, piece, sizeof kept - strlen(kept) - 1);
      }
      if (quote) strncat(kept, "\"", sizeof kept - strlen(kept) - 1);
      continue;
    }
    if (removed[0]) strncat(removed, " ", sizeof removed - strlen(removed) - 1);
    strncat(removed, words[i], sizeof removed - strlen(removed) - 1);
    if (takes_value(words[i]) && i + 1 < n && words[i + 1][0] != '-') {
      strncat(removed, " ", sizeof removed - strlen(removed) - 1);
      strncat(removed, words[++i], sizeof removed - strlen(removed) - 1);
    }
  }
  if (removed[0] == '\0') return environ;
  char msg[1200];
  snprintf(msg, sizeof msg, "removed %s from NODE_OPTIONS", removed);
  log_line(LOG_WARNING, __LINE__, msg, NULL);
  size_t count = 0;
  while (environ[count]) count++;
  char **env = calloc(count + 2, sizeof *env);
  size_t j = 0;
  for (size_t i = 0; i < count; i++)
    if (strncmp(environ[i], "NODE_OPTIONS=", 13) != 0) env[j++] = environ[i];
  if (kept[0]) {
    char *entry = malloc(strlen(kept) + 14);
    sprintf(entry, "NODE_OPTIONS=%s", kept);
    env[j++] = entry;
  }
  return env;
}
