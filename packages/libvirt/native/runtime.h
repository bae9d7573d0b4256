// Calls that change a running domain (disk size, vCPU count, a device's live settings). They are added to
// NativeDomain's prototype so the TypeScript face sees them as ordinary domain methods.
#pragma once

#include <napi.h>

namespace vlt {

void RegisterRuntimeMethods(Napi::Env env, Napi::Function domainCtor);

}  // namespace vlt
