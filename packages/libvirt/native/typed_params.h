// Bulk stats records (virDomainStatsRecord) copied on the pool thread and turned into JS on the JS thread.
#pragma once

#include <napi.h>
#include <libvirt/libvirt.h>

#include <string>
#include <vector>

namespace vlt {

struct StatValue {
  std::string field;
  int type = 0;
  double number = 0;  // every numeric type; counters beyond 2^53 lose precision, documented in the face
  std::string text;
};

struct StatsRecord {
  std::string name;
  std::string uuid;
  std::vector<StatValue> values;
};

StatValue CopyParam(const virTypedParameter& p);
// { field: value } of a parameter list (numbers, strings, booleans).
Napi::Object ValuesToJs(Napi::Env env, const std::vector<StatValue>& values);

// Copies and frees `records` (a NULL-terminated list from libvirt).
std::vector<StatsRecord> CopyStatsRecords(virDomainStatsRecordPtr* records);
Napi::Array StatsToJs(Napi::Env env, const std::vector<StatsRecord>& records);

}  // namespace vlt
