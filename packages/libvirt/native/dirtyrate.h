// Dirty-rate measurement (virDomainStartDirtyRateCalc): a free function taking a NativeDomain, so the
// domain class itself stays untouched by this feature.
#pragma once

#include <napi.h>

namespace vlt {

// JS: startDirtyRateCalc(domain: NativeDomain, seconds: number, flags: number): Promise<void>.
// Runs off the JS thread; the result is read later through the `dirtyrate` stats group.
Napi::Value StartDirtyRateCalc(const Napi::CallbackInfo& info);

}  // namespace vlt
