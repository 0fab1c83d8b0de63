//===- PluginFields.h - plugin fields as MLIR attributes --------*- C++ -*-===//
//
// kiln.plugin keeps a plugin's fields (kiln/runtime/Plugin.h) as a
// dictionary: integers as array<i64>, floats as array<f64>, text as a
// string. The importers write it, the plan translation reads it back.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_PLUGINFIELDS_H
#define KILN_SUPPORT_PLUGINFIELDS_H

#include "kiln/runtime/Plugin.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::kiln {

/// `fields` as a dictionary attribute.
inline DictionaryAttr
getPluginFieldsAttr(MLIRContext *context,
                    const ::kiln::rt::PluginFields &fields) {
  using Type = ::kiln::rt::PluginField::Type;
  Builder builder(context);
  NamedAttrList list;
  for (const ::kiln::rt::PluginField &field : fields) {
    Attribute value;
    switch (field.type) {
    case Type::Ints:
      value = builder.getDenseI64ArrayAttr(field.ints);
      break;
    case Type::Floats:
      value = builder.getDenseF64ArrayAttr(field.floats);
      break;
    case Type::Text:
      value = builder.getStringAttr(field.text);
      break;
    }
    list.set(field.name, value);
  }
  return list.getDictionary(context);
}

/// The fields in `dictionary` (entries of other kinds are skipped: the
/// kiln.plugin verifier refuses them).
inline ::kiln::rt::PluginFields getPluginFields(DictionaryAttr dictionary) {
  using ::kiln::rt::PluginField;
  ::kiln::rt::PluginFields fields;
  for (NamedAttribute entry : dictionary) {
    std::string name = entry.getName().str();
    if (auto ints = dyn_cast<DenseI64ArrayAttr>(entry.getValue()))
      fields.push_back(
          PluginField::of(name, std::vector<int64_t>(ints.asArrayRef().begin(),
                                                     ints.asArrayRef().end())));
    else if (auto floats = dyn_cast<DenseF64ArrayAttr>(entry.getValue()))
      fields.push_back(PluginField::of(
          name, std::vector<double>(floats.asArrayRef().begin(),
                                    floats.asArrayRef().end())));
    else if (auto text = dyn_cast<StringAttr>(entry.getValue()))
      fields.push_back(PluginField::of(name, text.str()));
  }
  return fields;
}

} // namespace mlir::kiln

#endif // KILN_SUPPORT_PLUGINFIELDS_H
