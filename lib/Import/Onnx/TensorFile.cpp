//===- TensorFile.cpp - read serialized ONNX tensors ------------*- C++ -*-===//
//
// Reads the TensorProto files of the ONNX test data (input_K.pb,
// output_K.pb) into host tensors, checking sizes before copying.
//
//===----------------------------------------------------------------------===//

#include "kiln/Import/TensorFile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>

using namespace mlir::kiln;

static bool kindOf(int32_t dataType, ElementKind &kind) {
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
    kind = ElementKind::F32;
    return true;
  case onnx::TensorProto::FLOAT16:
    kind = ElementKind::F16;
    return true;
  case onnx::TensorProto::BFLOAT16:
    kind = ElementKind::BF16;
    return true;
  case onnx::TensorProto::INT8:
    kind = ElementKind::I8;
    return true;
  case onnx::TensorProto::INT32:
    kind = ElementKind::I32;
    return true;
  case onnx::TensorProto::INT64:
    kind = ElementKind::I64;
    return true;
  case onnx::TensorProto::BOOL:
    kind = ElementKind::Bool;
    return true;
  default:
    return false;
  }
}

/// Reads a .npy file: "\x93NUMPY", version, header length, a Python dict
/// literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }, data.
static std::string readNpy(const std::string &path, HostTensor &tensor) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return "cannot open '" + path + "'";
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    return "'" + path + "' is not a .npy file";
  uint32_t headerLen = 0;
  if (magic[6] == 1) {
    uint16_t len16;
    in.read(reinterpret_cast<char *>(&len16), 2);
    headerLen = len16;
  } else {
    in.read(reinterpret_cast<char *>(&headerLen), 4);
  }
  if (!in || headerLen > (1u << 20))
    return "'" + path + "' has a malformed .npy header";
  std::string header(headerLen, '\0');
  if (!in.read(header.data(), headerLen))
    return "'" + path + "' is truncated";
  auto field = [&](const std::string &key) -> std::string {
    size_t at = header.find("'" + key + "'");
    if (at == std::string::npos)
      return "";
    size_t colon = header.find(':', at);
    return colon == std::string::npos ? "" : header.substr(colon + 1);
  };
  std::string descr = field("descr"), order = field("fortran_order"),
              shapeText = field("shape");
  size_t q1 = descr.find('\''), q2 = descr.find('\'', q1 + 1);
  if (q1 == std::string::npos || q2 == std::string::npos)
    return "'" + path + "' has no dtype in its .npy header";
  descr = descr.substr(q1 + 1, q2 - q1 - 1);
  if (order.find("True") < order.find(','))
    return "'" + path + "' is in Fortran order; save it in C order";
  static const std::pair<const char *, ElementKind> kinds[] = {
      {"<f4", ElementKind::F32}, {"<f2", ElementKind::F16}, {"|i1", ElementKind::I8},
      {"<i4", ElementKind::I32}, {"<i8", ElementKind::I64}, {"|b1", ElementKind::Bool}};
  ElementKind kind = ElementKind::F32;
  bool known = false;
  for (auto &[name, k] : kinds)
    if (descr == name) {
      kind = k;
      known = true;
    }
  if (!known)
    return "'" + path + "' has dtype '" + descr + "', which kiln does not read";
  size_t open = shapeText.find('('), close = shapeText.find(')');
  if (open == std::string::npos || close == std::string::npos)
    return "'" + path + "' has no shape in its .npy header";
  std::vector<int64_t> shape;
  std::string dims = shapeText.substr(open + 1, close - open - 1);
  int64_t count = 1;
  for (size_t pos = 0; pos < dims.size();) {
    size_t comma = dims.find(',', pos);
    std::string d = dims.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (d.find_first_not_of(" ") != std::string::npos) {
      char *end = nullptr;
      long long v = std::strtoll(d.c_str(), &end, 10);
      if (v < 0 || (v > 0 && count > (int64_t(1) << 40) / v))
        return "'" + path + "' has an invalid shape";
      shape.push_back(v);
      count *= v;
    }
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  HostTensor t(llvm::sys::path::stem(path).str(), kind, shape);
  if (!in.read(static_cast<char *>(t.data()), t.numBytes()))
    return "'" + path + "' holds fewer bytes than its shape needs";
  tensor = std::move(t);
  return "";
}

std::string mlir::kiln::readTensorFile(const std::string &path,
                                       HostTensor &tensor) {
  if (llvm::StringRef(path).ends_with(".npy"))
    return readNpy(path, tensor);
  onnx::TensorProto proto;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return "cannot open '" + path + "'";
  if (!proto.ParseFromIstream(&in))
    return "'" + path + "' is not a serialized TensorProto";
  ElementKind kind;
  if (!kindOf(proto.data_type(), kind))
    return "'" + path + "' has element type " +
           (onnx::TensorProto::DataType_IsValid(proto.data_type())
                ? onnx::TensorProto::DataType_Name(
                      static_cast<onnx::TensorProto::DataType>(proto.data_type()))
                : std::to_string(proto.data_type())) +
           ", which kiln does not support";
  std::vector<int64_t> shape;
  int64_t count = 1;
  for (int64_t d : proto.dims()) {
    if (d < 0 || (d > 0 && count > (int64_t(1) << 40) / d))
      return "'" + path + "' has invalid dims";
    shape.push_back(d);
    count *= d;
  }
  HostTensor t(proto.name(), kind, shape);
  int64_t bytes = t.numBytes(), width = elementBytes(kind);
  auto *out = static_cast<uint8_t *>(t.data());
  if (proto.has_raw_data()) {
    if (static_cast<int64_t>(proto.raw_data().size()) != bytes)
      return "'" + path + "': raw_data holds " +
             std::to_string(proto.raw_data().size()) + " bytes, expected " +
             std::to_string(bytes);
    std::memcpy(out, proto.raw_data().data(), bytes);
  } else if (kind == ElementKind::F32) {
    if (proto.float_data_size() != count)
      return "'" + path + "': float_data has the wrong length";
    std::memcpy(out, proto.float_data().data(), bytes);
  } else if (kind == ElementKind::I64) {
    if (proto.int64_data_size() != count)
      return "'" + path + "': int64_data has the wrong length";
    std::memcpy(out, proto.int64_data().data(), bytes);
  } else {
    if (proto.int32_data_size() != count)
      return "'" + path + "': int32_data has the wrong length";
    for (int64_t i = 0; i < count; ++i) {
      int32_t v = proto.int32_data(i);
      std::memcpy(out + i * width, &v, width); // little-endian low bytes
    }
  }
  tensor = std::move(t);
  return "";
}
