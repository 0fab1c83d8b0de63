//===- TensorFile.cpp - read serialized ONNX tensors ------------*- C++ -*-===//
//
// Reads the TensorProto files of the ONNX test data (input_K.pb,
// output_K.pb) into host tensors, checking sizes before copying.
//
//===----------------------------------------------------------------------===//

#include "kiln/Import/TensorFile.h"

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

std::string mlir::kiln::readTensorFile(const std::string &path,
                                       HostTensor &tensor) {
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
