//===- PluginPayload.cpp - what a plugin step records -----------*- C++ -*-===//
//
// Little-endian: "KPL1", the creator's name, version and namespace
// (u32 length + bytes each), the workspace (u64), the inputs and the
// outputs (u32 count; each: u8 type, u32 rank, rank x i64), the fields
// (u32 count; each: name, u8 type, u32 count, then count x i64, count x f64
// or count bytes), and a CRC-32 (u32) of everything before it. Every length
// is checked against what is left, so a damaged payload is refused, never
// read past.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Plugin.h"

#include "plan/Crc32.h"

#include <cstring>

namespace kiln::rt {

namespace {
constexpr char kMagic[4] = {'K', 'P', 'L', '1'};
/// More than any plugin needs; bounds what a damaged payload can ask for.
constexpr uint32_t kMaxCount = 1u << 20;

template <typename T> void put(std::string &out, T value) {
  out.append(reinterpret_cast<const char *>(&value), sizeof(T));
}

void putString(std::string &out, const std::string &text) {
  put<uint32_t>(out, uint32_t(text.size()));
  out += text;
}

void putTensors(std::string &out, const std::vector<PluginTensor> &tensors) {
  put<uint32_t>(out, uint32_t(tensors.size()));
  for (const PluginTensor &t : tensors) {
    put<uint8_t>(out, uint8_t(t.type));
    put<uint32_t>(out, uint32_t(t.dims.size()));
    for (int64_t d : t.dims)
      put<int64_t>(out, d);
  }
}

/// Reads what encodePluginCall wrote, bounds checked.
struct Reader {
  const std::string &bytes;
  size_t at = 0;
  std::string error;

  bool fail(const std::string &what) {
    if (error.empty())
      error = what + " at byte " + std::to_string(at);
    return false;
  }
  template <typename T> bool get(T &value, const char *what) {
    if (bytes.size() - at < sizeof(T))
      return fail(std::string("truncated ") + what);
    std::memcpy(&value, bytes.data() + at, sizeof(T));
    at += sizeof(T);
    return true;
  }
  bool count(uint32_t &n, const char *what, size_t elementBytes) {
    if (!get(n, what))
      return false;
    if (n > kMaxCount || bytes.size() - at < size_t(n) * elementBytes)
      return fail(std::string("a ") + what + " of " + std::to_string(n) +
                  " entries does not fit");
    return true;
  }
  bool string(std::string &text, const char *what) {
    uint32_t n = 0;
    if (!count(n, what, 1))
      return false;
    text.assign(bytes, at, n);
    at += n;
    return true;
  }
  bool tensors(std::vector<PluginTensor> &out, const char *what) {
    uint32_t n = 0;
    if (!count(n, what, 5))
      return false;
    out.resize(n);
    for (PluginTensor &t : out) {
      uint8_t type = 0;
      uint32_t rank = 0;
      if (!get(type, what) || !count(rank, what, 8))
        return false;
      if (type > uint8_t(DataType::U2))
        return fail(std::string("an unknown element type in ") + what);
      t.type = DataType(type);
      t.dims.resize(rank);
      for (int64_t &d : t.dims)
        if (!get(d, what) || d < 0)
          return fail(std::string("a negative dimension in ") + what);
    }
    return true;
  }
};
} // namespace

std::string encodePluginCall(const PluginCall &call) {
  std::string out(kMagic, sizeof(kMagic));
  putString(out, call.name);
  putString(out, call.version);
  putString(out, call.pluginNamespace);
  put<uint64_t>(out, call.workspaceBytes);
  putTensors(out, call.inputs);
  putTensors(out, call.outputs);
  put<uint32_t>(out, uint32_t(call.fields.size()));
  for (const PluginField &f : call.fields) {
    putString(out, f.name);
    put<uint8_t>(out, uint8_t(f.type));
    switch (f.type) {
    case PluginField::Type::Ints:
      put<uint32_t>(out, uint32_t(f.ints.size()));
      for (int64_t v : f.ints)
        put<int64_t>(out, v);
      break;
    case PluginField::Type::Floats:
      put<uint32_t>(out, uint32_t(f.floats.size()));
      for (double v : f.floats)
        put<double>(out, v);
      break;
    case PluginField::Type::Text:
      putString(out, f.text);
      break;
    }
  }
  put<uint32_t>(out, detail::crc32(out.data(), out.size()));
  return out;
}

StatusOr<PluginCall> decodePluginCall(const std::string &payload) {
  auto refuse = [](const std::string &why) {
    return Status(StatusCode::InvalidPlan, "plugin payload: " + why);
  };
  if (payload.size() < sizeof(kMagic) + 4 ||
      std::memcmp(payload.data(), kMagic, sizeof(kMagic)) != 0)
    return refuse("not a plugin payload (no KPL1 magic)");
  size_t body = payload.size() - 4;
  uint32_t stored;
  std::memcpy(&stored, payload.data() + body, 4);
  if (detail::crc32(payload.data(), body) != stored)
    return refuse("the checksum does not match (the plugin's fields or "
                  "tensors were changed)");
  std::string content = payload.substr(0, body);
  Reader r{content, sizeof(kMagic), {}};
  PluginCall call;
  uint32_t numFields = 0;
  if (!r.string(call.name, "name") || !r.string(call.version, "version") ||
      !r.string(call.pluginNamespace, "namespace") ||
      !r.get(call.workspaceBytes, "workspace") ||
      !r.tensors(call.inputs, "input list") ||
      !r.tensors(call.outputs, "output list") ||
      !r.count(numFields, "field list", 6))
    return refuse(r.error);
  call.fields.resize(numFields);
  for (PluginField &f : call.fields) {
    uint8_t type = 0;
    uint32_t n = 0;
    if (!r.string(f.name, "field name") || !r.get(type, "field type"))
      return refuse(r.error);
    switch (type) {
    case uint8_t(PluginField::Type::Ints):
      f.type = PluginField::Type::Ints;
      if (!r.count(n, "field", 8))
        return refuse(r.error);
      f.ints.resize(n);
      for (int64_t &v : f.ints)
        r.get(v, "field");
      break;
    case uint8_t(PluginField::Type::Floats):
      f.type = PluginField::Type::Floats;
      if (!r.count(n, "field", 8))
        return refuse(r.error);
      f.floats.resize(n);
      for (double &v : f.floats)
        r.get(v, "field");
      break;
    case uint8_t(PluginField::Type::Text):
      f.type = PluginField::Type::Text;
      if (!r.string(f.text, "field"))
        return refuse(r.error);
      break;
    default:
      return refuse("field '" + f.name + "' has an unknown type " +
                    std::to_string(type));
    }
  }
  if (r.at != content.size())
    return refuse(std::to_string(content.size() - r.at) +
                  " bytes after the fields");
  return call;
}

} // namespace kiln::rt
