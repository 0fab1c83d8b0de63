//===- DetectionFields.h - strict reading of plugin fields ------*- C++ -*-===//
//
// The detection plugins (NMS_TRT, RPROI_TRT) read their fields through these
// helpers, so every refusal has the same shape: the plugin's name, the
// field's name and what was wrong ("NMS_TRT: field 'topK' is missing (one
// integer)", "... field 'nmsThreshold' must be floats, got ints"). A field
// that the creator does not take, or one given twice, is refused too, as the
// ONNX importer refuses attributes that are not fields.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_PLUGINS_DETECTIONFIELDS_H
#define KILN_RUNTIME_PLUGINS_DETECTIONFIELDS_H

#include "kiln/runtime/Plugin.h"

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln::rt::builtin {

/// Reads the fields of one plugin, naming it in every refusal.
class FieldReader {
public:
  using Names = std::vector<std::pair<std::string, PluginField::Type>>;

  FieldReader(std::string plugin, const PluginFields &fields, Names known)
      : plugin(std::move(plugin)), fields(fields), known(std::move(known)) {}

  /// InvalidArgument naming a field that is not in `known` (with the fields
  /// that are) or that is given twice.
  Status checkNames() const {
    for (size_t i = 0; i < fields.size(); ++i) {
      bool isKnown = false;
      for (const auto &k : known)
        isKnown |= k.first == fields[i].name;
      if (!isKnown) {
        std::string list;
        for (const auto &k : known)
          list += (list.empty() ? "" : ", ") + k.first;
        return error("unknown field '" + fields[i].name + "' (fields: " + list +
                     ")");
      }
      for (size_t j = 0; j < i; ++j)
        if (fields[j].name == fields[i].name)
          return error("field '" + fields[i].name + "' is given twice");
    }
    return Status::ok();
  }

  bool has(const std::string &name) const {
    return findField(fields, name) != nullptr;
  }

  /// One integer in [lo, hi]; `fallback` when absent (else refused).
  Status getInt(const std::string &name, int64_t &value, int64_t lo, int64_t hi,
                std::optional<int64_t> fallback = {}) const {
    std::optional<std::vector<int64_t>> list;
    if (fallback)
      list = std::vector<int64_t>{*fallback};
    std::vector<int64_t> values;
    if (Status s = getInts(name, values, 1, list); !s)
      return s;
    value = values[0];
    if (value < lo || value > hi)
      return error("field '" + name + "' must be in [" + std::to_string(lo) +
                   ", " + std::to_string(hi) + "], got " +
                   std::to_string(value));
    return Status::ok();
  }

  /// A boolean given as one integer, 0 or 1.
  Status getBool(const std::string &name, bool &value,
                 std::optional<bool> fallback = {}) const {
    std::optional<int64_t> list;
    if (fallback)
      list = *fallback ? 1 : 0;
    int64_t v = 0;
    if (Status s = getInt(name, v, 0, 1, list); !s)
      return s;
    value = v != 0;
    return Status::ok();
  }

  /// Exactly `count` integers (any number when count is 0).
  Status getInts(const std::string &name, std::vector<int64_t> &values,
                 size_t count,
                 std::optional<std::vector<int64_t>> fallback = {}) const {
    const PluginField *f = findField(fields, name);
    if (!f) {
      if (fallback) {
        values = *fallback;
        return Status::ok();
      }
      return error("field '" + name + "' is missing (" + describe(count) +
                   (count == 1 ? " integer)" : " integers)"));
    }
    if (f->type != PluginField::Type::Ints)
      return error("field '" + name + "' must be ints, got " +
                   typeName(f->type));
    if ((count && f->ints.size() != count) || f->ints.empty())
      return error("field '" + name + "' must have " + describe(count) +
                   (count == 1 ? " integer" : " integers") + ", got " +
                   std::to_string(f->ints.size()));
    values = f->ints;
    return Status::ok();
  }

  /// One finite float.
  Status getFloat(const std::string &name, float &value) const {
    std::vector<float> values;
    if (Status s = getFloats(name, values, 1); !s)
      return s;
    value = values[0];
    return Status::ok();
  }

  /// Exactly `count` finite floats (one or more when count is 0).
  Status getFloats(const std::string &name, std::vector<float> &values,
                   size_t count) const {
    const PluginField *f = findField(fields, name);
    if (!f)
      return error("field '" + name + "' is missing (" + describe(count) +
                   (count == 1 ? " float)" : " floats)"));
    if (f->type != PluginField::Type::Floats)
      return error("field '" + name + "' must be floats, got " +
                   typeName(f->type));
    if ((count && f->floats.size() != count) || f->floats.empty())
      return error("field '" + name + "' must have " + describe(count) +
                   (count == 1 ? " float" : " floats") + ", got " +
                   std::to_string(f->floats.size()));
    values.clear();
    for (double v : f->floats) {
      if (!std::isfinite(v) || std::fabs(v) > 3.0e38)
        return error("field '" + name + "' must be finite f32 values, got " +
                     std::to_string(v));
      values.push_back(float(v));
    }
    return Status::ok();
  }

  /// InvalidArgument "<plugin>: <why>".
  Status error(const std::string &why) const {
    return Status(StatusCode::InvalidArgument, plugin + ": " + why);
  }

private:
  static std::string describe(size_t count) {
    return count ? std::to_string(count) : "one or more";
  }
  static std::string typeName(PluginField::Type type) {
    switch (type) {
    case PluginField::Type::Ints:
      return "ints";
    case PluginField::Type::Floats:
      return "floats";
    case PluginField::Type::Text:
      return "text";
    }
    return "?";
  }

  std::string plugin;
  const PluginFields &fields;
  Names known;
};

/// "2x3x4" for error messages.
inline std::string shapeString(const std::vector<int64_t> &dims) {
  std::string text;
  for (int64_t d : dims)
    text += (text.empty() ? "" : "x") + std::to_string(d);
  return text.empty() ? "scalar" : text;
}

} // namespace kiln::rt::builtin

#endif // KILN_RUNTIME_PLUGINS_DETECTIONFIELDS_H
