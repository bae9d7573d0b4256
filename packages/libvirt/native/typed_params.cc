#include "typed_params.h"

namespace vlt {

StatValue CopyParam(const virTypedParameter& p) {
  StatValue v;
  v.field = p.field;
  v.type = p.type;
  switch (p.type) {
    case VIR_TYPED_PARAM_INT: v.number = p.value.i; break;
    case VIR_TYPED_PARAM_UINT: v.number = p.value.ui; break;
    case VIR_TYPED_PARAM_LLONG: v.number = static_cast<double>(p.value.l); break;
    case VIR_TYPED_PARAM_ULLONG: v.number = static_cast<double>(p.value.ul); break;
    case VIR_TYPED_PARAM_DOUBLE: v.number = p.value.d; break;
    case VIR_TYPED_PARAM_BOOLEAN: v.number = p.value.b ? 1 : 0; break;
    case VIR_TYPED_PARAM_STRING: v.text = p.value.s != nullptr ? p.value.s : ""; break;
    default: break;
  }
  return v;
}

Napi::Object ValuesToJs(Napi::Env env, const std::vector<StatValue>& values) {
  Napi::Object stats = Napi::Object::New(env);
  for (const StatValue& v : values) {
    if (v.type == VIR_TYPED_PARAM_STRING) {
      stats.Set(v.field, v.text);
    } else if (v.type == VIR_TYPED_PARAM_BOOLEAN) {
      stats.Set(v.field, Napi::Boolean::New(env, v.number != 0));
    } else {
      stats.Set(v.field, Napi::Number::New(env, v.number));
    }
  }
  return stats;
}

std::vector<StatsRecord> CopyStatsRecords(virDomainStatsRecordPtr* records) {
  std::vector<StatsRecord> out;
  if (records == nullptr) return out;
  for (virDomainStatsRecordPtr* r = records; *r != nullptr; ++r) {
    StatsRecord rec;
    const char* name = virDomainGetName((*r)->dom);
    if (name != nullptr) rec.name = name;
    char uuid[VIR_UUID_STRING_BUFLEN];
    if (virDomainGetUUIDString((*r)->dom, uuid) == 0) rec.uuid = uuid;
    for (int i = 0; i < (*r)->nparams; ++i) rec.values.push_back(CopyParam((*r)->params[i]));
    out.push_back(std::move(rec));
  }
  virDomainStatsRecordListFree(records);
  return out;
}

Napi::Array StatsToJs(Napi::Env env, const std::vector<StatsRecord>& records) {
  Napi::Array arr = Napi::Array::New(env, records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const StatsRecord& rec = records[i];
    Napi::Object stats = ValuesToJs(env, rec.values);
    Napi::Object obj = Napi::Object::New(env);
    obj.Set("name", rec.name);
    obj.Set("uuid", rec.uuid);
    obj.Set("stats", stats);
    arr.Set(static_cast<uint32_t>(i), obj);
  }
  return arr;
}

}  // namespace vlt
