//===- OnnxTensors.cpp - ONNX TensorProto to MLIR attributes ----*- C++ -*-===//
//
// Turns initializers and Constant values into kiln constants. Large tensors
// become dense_resource blobs that take over the protobuf's raw_data string
// (or map the external data file) instead of copying it; small ones become
// dense attributes, which folders can read. External data is read only from
// inside the model's folder: absolute paths, `..` and symlinks that lead out
// are refused.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <memory>

using namespace mlir;
using namespace mlir::kiln::onnx_import;

/// Tensors with at most this many elements become dense attributes.
static constexpr int64_t kDenseLimit = 64;

Type mlir::kiln::onnx_import::convertElementType(MLIRContext *ctx,
                                                 int32_t dataType) {
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
    return Float32Type::get(ctx);
  case onnx::TensorProto::FLOAT16:
    return Float16Type::get(ctx);
  case onnx::TensorProto::BFLOAT16:
    return BFloat16Type::get(ctx);
  case onnx::TensorProto::INT8:
    return IntegerType::get(ctx, 8);
  case onnx::TensorProto::INT32:
    return IntegerType::get(ctx, 32);
  case onnx::TensorProto::INT64:
    return IntegerType::get(ctx, 64);
  case onnx::TensorProto::BOOL:
    return IntegerType::get(ctx, 1);
  case onnx::TensorProto::DOUBLE:
    return Float64Type::get(ctx);
  case onnx::TensorProto::INT16:
    return IntegerType::get(ctx, 16);
  case onnx::TensorProto::UINT8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case onnx::TensorProto::UINT16:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case onnx::TensorProto::UINT32:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case onnx::TensorProto::UINT64:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  // The newer types, by number: Debian's onnx 1.12 schema does not name them.
  case 17: // FLOAT8E4M3FN
    return Float8E4M3FNType::get(ctx);
  case 18: // FLOAT8E4M3FNUZ
    return Float8E4M3FNUZType::get(ctx);
  case 19: // FLOAT8E5M2
    return Float8E5M2Type::get(ctx);
  case 20: // FLOAT8E5M2FNUZ
    return Float8E5M2FNUZType::get(ctx);
  case 21: // UINT4
    return IntegerType::get(ctx, 4, IntegerType::Unsigned);
  case 22: // INT4
    return IntegerType::get(ctx, 4);
  case 23: // FLOAT4E2M1
    return Float4E2M1FNType::get(ctx);
  case 25: // UINT2
    return IntegerType::get(ctx, 2, IntegerType::Unsigned);
  case 26: // INT2
    return IntegerType::get(ctx, 2);
  default:
    return nullptr;
  }
}

std::string mlir::kiln::onnx_import::dataTypeName(int32_t dataType) {
  // Names of the types newer than Debian's onnx 1.12 schema.
  static const char *const newer[] = {
      "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4",
      "INT4",         "FLOAT4E2M1",     "FLOAT8E8M0", "UINT2",          "INT2"};
  if (onnx::TensorProto::DataType_IsValid(dataType))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(dataType));
  if (dataType >= 17 && dataType <= 26)
    return newer[dataType - 17];
  return "data type " + std::to_string(dataType);
}

/// Bytes per element in kiln's memory (bool and the sub-byte types: one).
static int64_t storageBytes(Type element) {
  return std::max<int64_t>(element.getIntOrFloatBitWidth() / 8, 1);
}

/// Bits per element of the types ONNX packs several to a byte (4 or 2), or 0.
static int packedBits(Type element) {
  unsigned width = element.getIntOrFloatBitWidth();
  return width == 4 || width == 2 ? static_cast<int>(width) : 0;
}

std::optional<std::string>
mlir::kiln::onnx_import::unpackSubByte(const onnx::TensorProto &t,
                                       int64_t count, int bits, bool isSigned,
                                       std::string &error) {
  int perByte = 8 / bits;
  int64_t need = (count + perByte - 1) / perByte;
  int64_t have = t.has_raw_data() ? static_cast<int64_t>(t.raw_data().size())
                                  : t.int32_data_size();
  if (have != need) {
    error = std::string(t.has_raw_data() ? "raw_data" : "int32_data") +
            " holds " + std::to_string(have) + " packed bytes, expected " +
            std::to_string(need);
    return std::nullopt;
  }
  std::string out(static_cast<size_t>(count), '\0');
  for (int64_t i = 0; i < count; ++i) {
    int64_t at = i / perByte;
    unsigned byte = t.has_raw_data() ? static_cast<uint8_t>(t.raw_data()[at])
                                     : static_cast<uint8_t>(t.int32_data(at));
    unsigned v = (byte >> (bits * (i % perByte))) & ((1u << bits) - 1);
    if (isSigned && (v >> (bits - 1)))
      v |= ~0u << bits; // sign-extend within the byte
    out[i] = static_cast<char>(v);
  }
  return out;
}

/// Reads external data `location` [offset, offset + length) from inside
/// `modelDir` without copying (the file is mapped).
static std::unique_ptr<llvm::MemoryBuffer>
readExternal(const onnx::TensorProto &tensor, llvm::StringRef modelDir,
             int64_t expectedBytes, std::string &error) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &entry : tensor.external_data()) {
    char *end = nullptr;
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset") {
      offset = std::strtoll(entry.value().c_str(), &end, 10);
      if (end == entry.value().c_str() || *end || offset < 0) {
        error = "external data offset '" + entry.value() +
                "' is not a non-negative integer";
        return nullptr;
      }
    } else if (entry.key() == "length") {
      length = std::strtoll(entry.value().c_str(), &end, 10);
      if (end == entry.value().c_str() || *end || length < 0) {
        error = "external data length '" + entry.value() +
                "' is not a non-negative integer";
        return nullptr;
      }
    }
  }
  if (location.empty()) {
    error = "external data has no 'location'";
    return nullptr;
  }
  if (modelDir.empty()) {
    error = "external data file '" + location +
            "' cannot be read: the model was given as bytes, without a "
            "folder for its external data";
    return nullptr;
  }
  if (llvm::sys::path::is_absolute(location)) {
    error =
        "external data location '" + location +
        "' is an absolute path; only files inside the model's folder are read";
    return nullptr;
  }
  for (auto it = llvm::sys::path::begin(location),
            e = llvm::sys::path::end(location);
       it != e; ++it)
    if (*it == "..") {
      error = "external data location '" + location +
              "' contains '..'; only files inside the model's folder are read";
      return nullptr;
    }
  llvm::SmallString<256> path(modelDir);
  llvm::sys::path::append(path, location);
  llvm::SmallString<256> realDir, realPath;
  if (llvm::sys::fs::real_path(modelDir, realDir) ||
      llvm::sys::fs::real_path(path, realPath)) {
    error = "external data file '" + location + "' cannot be opened";
    return nullptr;
  }
  llvm::StringRef dirRef(realDir);
  if (!llvm::StringRef(realPath).starts_with(dirRef) ||
      realPath.size() <= dirRef.size() ||
      !llvm::sys::path::is_separator(realPath[dirRef.size()])) {
    error = "external data file '" + location +
            "' resolves outside the model's folder (symbolic link?)";
    return nullptr;
  }
  // Only a plain file, and one that is not also reachable from outside the
  // folder by a hard link; a FIFO or a device would block or never end.
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(realPath, status)) {
    error = "external data file '" + location + "' cannot be opened";
    return nullptr;
  }
  if (status.type() != llvm::sys::fs::file_type::regular_file) {
    error = "external data file '" + location +
            "' is not a regular file (a FIFO, device or folder)";
    return nullptr;
  }
  if (status.getLinkCount() > 1) {
    error = "external data file '" + location + "' has " +
            std::to_string(status.getLinkCount()) +
            " hard links; only files with one link are read (a link may "
            "lead outside the model's folder)";
    return nullptr;
  }
  uint64_t fileSize = status.getSize();
  if (length < 0)
    length = static_cast<int64_t>(fileSize) - offset;
  if (static_cast<uint64_t>(offset) > fileSize ||
      static_cast<uint64_t>(length) > fileSize - offset) {
    // Unsigned: offset + length may not fit in int64.
    error = "external data [" + std::to_string(offset) + ", " +
            std::to_string(static_cast<uint64_t>(offset) +
                           static_cast<uint64_t>(length)) +
            ") lies outside '" + location + "' (" + std::to_string(fileSize) +
            " bytes)";
    return nullptr;
  }
  if (length != expectedBytes) {
    error = "external data holds " + std::to_string(length) +
            " bytes, but the tensor's dims and type need " +
            std::to_string(expectedBytes);
    return nullptr;
  }
  auto buffer = llvm::MemoryBuffer::getFileSlice(realPath, length, offset);
  if (!buffer) {
    error = "external data file '" + location +
            "' cannot be read: " + buffer.getError().message();
    return nullptr;
  }
  return std::move(*buffer);
}

/// Typed-field values of the tensor as raw little-endian bytes.
static bool packTypedFields(const onnx::TensorProto &t, Type element,
                            int64_t count, std::string &bytes,
                            std::string &error) {
  auto mismatch = [&](int64_t have) {
    error = "tensor has " + std::to_string(have) +
            " values, but its dims need " + std::to_string(count);
    return false;
  };
  // Check the count before allocating: dims may claim far more than given.
  // UINT32 and UINT64 are in uint64_data; UINT8/UINT16 in int32_data.
  bool inUint64 =
      element.isUnsignedInteger(32) || element.isUnsignedInteger(64);
  int64_t have = element.isF32()                 ? t.float_data_size()
                 : element.isF64()               ? t.double_data_size()
                 : inUint64                      ? t.uint64_data_size()
                 : element.isSignlessInteger(64) ? t.int64_data_size()
                                                 : t.int32_data_size();
  if (have != count)
    return mismatch(have);
  int64_t width = storageBytes(element);
  bytes.resize(static_cast<size_t>(count * width));
  if (count == 0)
    return true; // an empty field's data() may be null: nothing to copy
  char *out = bytes.data();
  if (element.isF32()) {
    std::memcpy(out, t.float_data().data(), count * 4);
    return true;
  }
  if (inUint64) {
    for (int64_t i = 0; i < count; ++i) {
      uint64_t v = t.uint64_data(i);
      std::memcpy(out + width * i, &v, width); // little-endian low bytes
    }
    return true;
  }
  if (element.isInteger(64)) {
    std::memcpy(out, t.int64_data().data(), count * 8);
    return true;
  }
  if (element.isF64()) {
    std::memcpy(out, t.double_data().data(), count * 8);
    return true;
  }
  // int32_data carries INT32, INT16, INT8, BOOL and the bits of
  // FLOAT16/BFLOAT16.
  for (int64_t i = 0; i < count; ++i) {
    int32_t v = t.int32_data(i);
    if (width == 4) {
      std::memcpy(out + 4 * i, &v, 4);
    } else if (width == 2) {
      uint16_t bits = static_cast<uint16_t>(v);
      std::memcpy(out + 2 * i, &bits, 2);
    } else {
      out[i] = static_cast<char>(element.isInteger(1) ? (v != 0) : v);
    }
  }
  return true;
}

FailureOr<ElementsAttr> mlir::kiln::onnx_import::convertTensor(
    MLIRContext *ctx, onnx::TensorProto &t, llvm::StringRef modelDir,
    llvm::StringRef resourceName, std::string &error) {
  Type element = convertElementType(ctx, t.data_type());
  if (!element) {
    error = "element type " + dataTypeName(t.data_type()) +
            " is not supported by kiln";
    return failure();
  }
  SmallVector<int64_t> shape;
  int64_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0) {
      error = "tensor has a negative dimension " + std::to_string(d);
      return failure();
    }
    if (llvm::MulOverflow(count, d, count) || count > (int64_t(1) << 40)) {
      error = "tensor's element count overflows";
      return failure();
    }
    shape.push_back(d);
  }
  auto type = RankedTensorType::get(shape, element);
  int bits = packedBits(element);
  int64_t bytesNeeded =
      bits ? (count * bits + 7) / 8 : count * storageBytes(element);
  if (bits) {
    // 4-bit and 2-bit elements come packed; kiln holds them one per byte.
    if (t.data_location() == onnx::TensorProto::EXTERNAL) {
      error = "external data of " + dataTypeName(t.data_type()) +
              " is not supported";
      return failure();
    }
    std::optional<std::string> bytes =
        unpackSubByte(t, count, bits, element.isSignlessInteger(), error);
    if (!bytes) {
      error += " for dims " + formatDims(shape);
      return failure();
    }
    return ElementsAttr(DenseElementsAttr::getFromRawBuffer(
        type, llvm::ArrayRef<char>(bytes->data(), bytes->size())));
  }

  // Where the bytes are: external file, raw_data, or typed fields.
  std::unique_ptr<llvm::MemoryBuffer> external;
  std::unique_ptr<std::string> owned;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    external = readExternal(t, modelDir, bytesNeeded, error);
    if (!external)
      return failure();
  } else if (t.has_raw_data()) {
    if (t.float_data_size() || t.int32_data_size() || t.int64_data_size() ||
        t.double_data_size() || t.uint64_data_size() || t.string_data_size()) {
      error = "tensor has both raw_data and typed data fields; exactly one "
              "holds its values";
      return failure();
    }
    if (static_cast<int64_t>(t.raw_data().size()) != bytesNeeded) {
      error = "raw_data holds " + std::to_string(t.raw_data().size()) +
              " bytes, but dims " + formatDims(shape) + " of " +
              dataTypeName(t.data_type()) + " need " +
              std::to_string(bytesNeeded);
      return failure();
    }
    owned = std::make_unique<std::string>();
    owned->swap(*t.mutable_raw_data());
  } else {
    owned = std::make_unique<std::string>();
    if (!packTypedFields(t, element, count, *owned, error))
      return failure();
  }
  llvm::StringRef bytes =
      external ? external->getBuffer() : llvm::StringRef(*owned);

  if (count <= kDenseLimit || element.isInteger(1)) {
    // Small (or bool) tensors: a dense attribute, readable by folders.
    if (element.isInteger(1)) {
      SmallVector<bool> values(bytes.begin(), bytes.end());
      return ElementsAttr(
          DenseElementsAttr::get(type, llvm::ArrayRef<bool>(values)));
    }
    return ElementsAttr(DenseElementsAttr::getFromRawBuffer(
        type, llvm::ArrayRef<char>(bytes.data(), bytes.size())));
  }

  // Large tensors: a resource blob that owns the bytes, copied only when
  // they are not aligned for their element type.
  size_t alignment = std::max<size_t>(storageBytes(element), 1);
  if (reinterpret_cast<uintptr_t>(bytes.data()) % alignment != 0) {
    auto aligned = std::make_unique<std::string>(bytes.str());
    external.reset();
    owned = std::move(aligned);
    bytes = *owned;
  }
  AsmResourceBlob blob;
  if (external) {
    std::shared_ptr<llvm::MemoryBuffer> keep(std::move(external));
    blob = AsmResourceBlob(
        llvm::ArrayRef<char>(bytes.data(), bytes.size()), alignment,
        [keep](void *, size_t, size_t) mutable { keep.reset(); },
        /*dataIsMutable=*/false);
  } else {
    std::shared_ptr<std::string> keep(std::move(owned));
    blob = AsmResourceBlob(
        llvm::ArrayRef<char>(bytes.data(), bytes.size()), alignment,
        [keep](void *, size_t, size_t) mutable { keep.reset(); },
        /*dataIsMutable=*/false);
  }
  return ElementsAttr(
      DenseResourceElementsAttr::get(type, resourceName, std::move(blob)));
}
