// Reaper primitives for a Node process that runs as PID 1 or as a child subreaper.
//
// Node's libuv waits only for the children it spawned itself (waitpid(pid) per process handle).
// Orphans re-parented to us are nobody's business in libuv, so they stay zombies. A blanket
// waitpid(-1) would fix that but would also swallow the exit status libuv is waiting for, and
// the child_process 'exit' event would never fire. So the addon offers targeted primitives:
// list our zombie children from /proc, and reap one given pid.
#include <napi.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

namespace {

Napi::Value ThrowErrno(Napi::Env env, const char* what, int err) {
  Napi::Error e = Napi::Error::New(env, std::string(what) + ": " + strerror(err));
  e.Set("errno", Napi::Number::New(env, err));
  e.Set("syscall", Napi::String::New(env, what));
  e.ThrowAsJavaScriptException();
  return env.Undefined();
}

// prctl(PR_SET_CHILD_SUBREAPER): orphans of our descendants are re-parented to us instead of
// to the namespace's PID 1, which is what makes the monitor useful when it is not PID 1.
Napi::Value SetChildSubreaper(const Napi::CallbackInfo& info) {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) return ThrowErrno(info.Env(), "prctl", errno);
  return info.Env().Undefined();
}

Napi::Value IsChildSubreaper(const Napi::CallbackInfo& info) {
  int flag = 0;
  if (prctl(PR_GET_CHILD_SUBREAPER, &flag, 0, 0, 0) != 0) return ThrowErrno(info.Env(), "prctl", errno);
  return Napi::Boolean::New(info.Env(), flag != 0);
}

// Parses "pid (comm) S ppid ..." from /proc/PID/stat. comm may contain spaces and ')', so the
// state is found after the LAST ')'.
bool ReadStateAndParent(const char* pidName, char* state, long* ppid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%s/stat", pidName);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[512];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  char* close_paren = strrchr(buf, ')');
  if (close_paren == nullptr || close_paren[1] == '\0') return false;
  char st = 0;
  long parent = 0;
  if (sscanf(close_paren + 1, " %c %ld", &st, &parent) != 2) return false;
  *state = st;
  *ppid = parent;
  return true;
}

// Returns the pids of every zombie whose parent is this process. Reading /proc in C keeps the
// periodic scan free of JS string garbage, which matters for a process that lives as long as a VM.
Napi::Value ZombieChildren(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const long self = static_cast<long>(getpid());
  Napi::Array out = Napi::Array::New(env);
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return ThrowErrno(env, "opendir", errno);
  uint32_t count = 0;
  while (struct dirent* entry = readdir(dir)) {
    if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
    char state = 0;
    long ppid = 0;
    if (!ReadStateAndParent(entry->d_name, &state, &ppid)) continue;
    if (state == 'Z' && ppid == self) out.Set(count++, Napi::Number::New(env, atol(entry->d_name)));
  }
  closedir(dir);
  return out;
}

// { pid, status, exitCode, signal } of one reaped child; status is the raw wait status.
Napi::Object ResultOf(Napi::Env env, pid_t pid, int status) {
  Napi::Object result = Napi::Object::New(env);
  result.Set("pid", Napi::Number::New(env, pid));
  result.Set("status", Napi::Number::New(env, status));
  if (WIFEXITED(status)) {
    result.Set("exitCode", Napi::Number::New(env, WEXITSTATUS(status)));
    result.Set("signal", env.Null());
  } else {
    result.Set("exitCode", env.Null());
    result.Set("signal", Napi::Number::New(env, WIFSIGNALED(status) ? WTERMSIG(status) : 0));
  }
  return result;
}

// waitpid(pid, WNOHANG) for exactly one pid. Returns null when the pid is not (yet) waitable or
// is not our child, else { pid, status, exitCode, signal } with status the raw wait status.
Napi::Value Reap(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) {
    Napi::TypeError::New(env, "reap(pid: number)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const pid_t pid = info[0].As<Napi::Number>().Int32Value();
  if (pid <= 0) {
    Napi::RangeError::New(env, "reap: pid must be positive").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  int status = 0;
  pid_t got;
  do {
    got = waitpid(pid, &status, WNOHANG);
  } while (got < 0 && errno == EINTR);
  if (got == 0 || (got < 0 && errno == ECHILD)) return env.Null();
  if (got < 0) return ThrowErrno(env, "waitpid", errno);
  return ResultOf(env, got, status);
}

// Reaps every waitable (exited) child except the pids in `own` (Node's own children, which libuv
// waits for), without reading /proc: waitid(P_ALL, WNOWAIT) names the next waitable child and
// leaves it waitable; if it is an orphan we reap exactly that pid, and look again. The cost is
// per zombie, not per process of the pod, so a burst of short-lived orphans is drained at once.
// The kernel always names the first waitable child of its list, so once that is one of `own` the
// loop cannot see past it: it stops and reports the pid in `blockedBy`, and the caller falls back
// to the /proc scan (this happens only while libuv has not yet collected its own child).
// Returns { reaped: ReapResult[], blockedBy: number | null }.
Napi::Value ReapWaitable(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsArray()) {
    Napi::TypeError::New(env, "reapWaitable(own: number[])").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Napi::Array ownArray = info[0].As<Napi::Array>();
  std::vector<pid_t> own;
  for (uint32_t i = 0; i < ownArray.Length(); i++) {
    own.push_back(static_cast<pid_t>(ownArray.Get(i).As<Napi::Number>().Int32Value()));
  }
  Napi::Array reaped = Napi::Array::New(env);
  uint32_t count = 0;
  Napi::Value blockedBy = env.Null();
  for (;;) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0) {
      if (errno == EINTR) continue;
      if (errno == ECHILD) break;
      return ThrowErrno(env, "waitid", errno);
    }
    if (si.si_pid == 0) break;  // children exist, none has exited
    if (std::find(own.begin(), own.end(), si.si_pid) != own.end()) {
      blockedBy = Napi::Number::New(env, si.si_pid);
      break;
    }
    int status = 0;
    pid_t got;
    do {
      got = waitpid(si.si_pid, &status, WNOHANG);
    } while (got < 0 && errno == EINTR);
    if (got <= 0) break;  // cannot happen for a child waitid just named; never spin on it
    reaped.Set(count++, ResultOf(env, got, status));
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("reaped", reaped);
  out.Set("blockedBy", blockedBy);
  return out;
}

// Puts one capability into the inheritable and ambient sets, so that the child (virt-launcher)
// keeps it across execve even when it runs as non-root: KubeVirt gives the launcher
// CAP_NET_BIND_SERVICE this way (DHCP on port 67). Returns false when the kernel refuses
// (capability not in our permitted set), which the caller logs and tolerates.
Napi::Value RaiseAmbientCapability(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int cap = info[0].As<Napi::Number>().Int32Value();
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) return Napi::Boolean::New(env, false);
  data[cap / 32].inheritable |= 1u << (cap % 32);
  if (syscall(SYS_capset, &header, data) != 0) return Napi::Boolean::New(env, false);
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) != 0) return Napi::Boolean::New(env, false);
  return Napi::Boolean::New(env, true);
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("setChildSubreaper", Napi::Function::New(env, SetChildSubreaper));
  exports.Set("isChildSubreaper", Napi::Function::New(env, IsChildSubreaper));
  exports.Set("zombieChildren", Napi::Function::New(env, ZombieChildren));
  exports.Set("reap", Napi::Function::New(env, Reap));
  exports.Set("reapWaitable", Napi::Function::New(env, ReapWaitable));
  exports.Set("raiseAmbientCapability", Napi::Function::New(env, RaiseAmbientCapability));
  return exports;
}

}  // namespace

NODE_API_MODULE(reaper, Init)
