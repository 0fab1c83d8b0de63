//===- TensorFile.cpp - read serialized ONNX tensors ------------*- C++ -*-===//
//
// Reads the TensorProto files of the ONNX test data (input_K.pb,
// output_K.pb) into host tensors, checking sizes before copying; .npy files
// go to the runtime's tooling.
//
//===----------------------------------------------------------------------===//

#include "kiln/Import/TensorFile.h"

#include "ImportContext.h"

#include "kiln/tooling/Npy.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>

using namespace mlir::kiln;
using ::kiln::tooling::DataType;
using ::kiln::tooling::HostTensor;
namespace rt = ::kiln::rt;

static bool typeOf(int32_t dataType, DataType &kind) {
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
    kind = DataType::F32;
    return true;
  case onnx::TensorProto::FLOAT16:
    kind = DataType::F16;
    return true;
  case onnx::TensorProto::BFLOAT16:
    kind = DataType::BF16;
    return true;
  case onnx::TensorProto::INT8:
    kind = DataType::I8;
    return true;
  case onnx::TensorProto::INT32:
    kind = DataType::I32;
    return true;
  case onnx::TensorProto::INT64:
    kind = DataType::I64;
    return true;
  case onnx::TensorProto::BOOL:
    kind = DataType::Bool;
    return true;
  case onnx::TensorProto::DOUBLE:
    kind = DataType::F64;
    return true;
  case onnx::TensorProto::INT16:
    kind = DataType::I16;
    return true;
  case onnx::TensorProto::UINT8:
    kind = DataType::U8;
    return true;
  case onnx::TensorProto::UINT16:
    kind = DataType::U16;
    return true;
  case onnx::TensorProto::UINT32:
    kind = DataType::U32;
    return true;
  case onnx::TensorProto::UINT64:
    kind = DataType::U64;
    return true;
  // The newer types, by number: Debian's onnx 1.12 schema does not name them.
  case 17: // FLOAT8E4M3FN
    kind = DataType::F8E4M3FN;
    return true;
  case 18: // FLOAT8E4M3FNUZ
    kind = DataType::F8E4M3FNUZ;
    return true;
  case 19: // FLOAT8E5M2
    kind = DataType::F8E5M2;
    return true;
  case 20: // FLOAT8E5M2FNUZ
    kind = DataType::F8E5M2FNUZ;
    return true;
  case 21: // UINT4
    kind = DataType::U4;
    return true;
  case 22: // INT4
    kind = DataType::I4;
    return true;
  case 23: // FLOAT4E2M1
    kind = DataType::F4E2M1;
    return true;
  case 25: // UINT2
    kind = DataType::U2;
    return true;
  case 26: // INT2
    kind = DataType::I2;
    return true;
  default:
    return false;
  }
}

/// Bits per element of the types ONNX packs several to a byte (4 or 2), or 0.
static int packedBits(DataType type) {
  switch (type) {
  case DataType::I4:
  case DataType::U4:
  case DataType::F4E2M1:
    return 4;
  case DataType::I2:
  case DataType::U2:
    return 2;
  default:
    return 0;
  }
}

/// An InvalidArgument status naming the file.
static rt::Status bad(const std::string &message) {
  return rt::Status(rt::StatusCode::InvalidArgument, message);
}

rt::StatusOr<HostTensor> mlir::kiln::readTensorFile(const std::string &path) {
  if (llvm::StringRef(path).ends_with(".npy"))
    return ::kiln::tooling::readNpy(path);
  onnx::TensorProto proto;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return bad("cannot open '" + path + "'");
  if (!proto.ParseFromIstream(&in))
    return bad("'" + path + "' is not a serialized TensorProto");
  DataType type;
  if (!typeOf(proto.data_type(), type))
    return bad(
        "'" + path + "' has element type " +
        (onnx::TensorProto::DataType_IsValid(proto.data_type())
             ? onnx::TensorProto::DataType_Name(
                   static_cast<onnx::TensorProto::DataType>(proto.data_type()))
             : std::to_string(proto.data_type())) +
        ", which kiln does not support");
  std::vector<int64_t> shape;
  int64_t count = 1;
  for (int64_t d : proto.dims()) {
    if (d < 0 || (d > 0 && count > ::kiln::tooling::kMaxHostTensorBytes / d))
      return bad("'" + path + "' has invalid dims");
    shape.push_back(d);
    count *= d;
  }
  // The data must match the dims before anything is allocated.
  int64_t width = rt::dataTypeBytes(type), bytes = count * width;
  // ONNX packs 4-bit and 2-bit elements, the first in the low bits, in
  // raw_data or one byte per int32_data entry; kiln holds one per byte.
  if (int bits = packedBits(type)) {
    // ONNX packs 4-bit and 2-bit elements; kiln holds one per byte.
    std::string why;
    std::optional<std::string> unpacked = onnx_import::unpackSubByte(
        proto, count, bits, type == DataType::I4 || type == DataType::I2, why);
    if (!unpacked)
      return bad("'" + path + "': " + why);
    auto t = HostTensor::create(proto.name(), type, shape);
    if (!t.isOk())
      return bad("'" + path + "': " + t.status().message());
    std::memcpy(t->data(), unpacked->data(), unpacked->size());
    return t;
  }
  if (proto.has_raw_data()) {
    if (static_cast<int64_t>(proto.raw_data().size()) != bytes)
      return bad("'" + path + "': raw_data holds " +
                 std::to_string(proto.raw_data().size()) + " bytes, expected " +
                 std::to_string(bytes));
  } else if (type == DataType::F32) {
    if (proto.float_data_size() != count)
      return bad("'" + path + "': float_data has the wrong length");
  } else if (type == DataType::I64) {
    if (proto.int64_data_size() != count)
      return bad("'" + path + "': int64_data has the wrong length");
  } else if (type == DataType::F64) {
    if (proto.double_data_size() != count)
      return bad("'" + path + "': double_data has the wrong length");
  } else if (type == DataType::U32 || type == DataType::U64) {
    if (proto.uint64_data_size() != count)
      return bad("'" + path + "': uint64_data has the wrong length");
  } else if (proto.int32_data_size() != count) {
    return bad("'" + path + "': int32_data has the wrong length");
  }
  auto t = HostTensor::create(proto.name(), type, shape);
  if (!t.isOk())
    return bad("'" + path + "': " + t.status().message());
  auto *out = static_cast<uint8_t *>(t->data());
  if (count == 0) {
    // Nothing to copy (an empty field's data() may be null).
  } else if (proto.has_raw_data()) {
    std::memcpy(out, proto.raw_data().data(), bytes);
  } else if (type == DataType::F32) {
    std::memcpy(out, proto.float_data().data(), bytes);
  } else if (type == DataType::I64) {
    std::memcpy(out, proto.int64_data().data(), bytes);
  } else if (type == DataType::F64) {
    std::memcpy(out, proto.double_data().data(), bytes);
  } else if (type == DataType::U32 || type == DataType::U64) {
    for (int64_t i = 0; i < count; ++i) {
      uint64_t v = proto.uint64_data(i);
      std::memcpy(out + i * width, &v, width); // little-endian low bytes
    }
  } else {
    for (int64_t i = 0; i < count; ++i) {
      int32_t v = proto.int32_data(i);
      std::memcpy(out + i * width, &v, width); // little-endian low bytes
    }
  }
  return t;
}
