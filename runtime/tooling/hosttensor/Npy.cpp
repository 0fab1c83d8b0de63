//===- Npy.cpp - NumPy .npy files -------------------------------*- C++ -*-===//
//
// The .npy format: "\x93NUMPY", a version (1.0: 2-byte header length; 2.0 and
// 3.0: 4 bytes), a Python dict literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
// spaces to a multiple of 64 bytes and ending in '\n', then the data.
//
//===----------------------------------------------------------------------===//

#include "kiln/tooling/Npy.h"

#include <sys/stat.h>

#include <cstring>
#include <fstream>

namespace kiln::tooling {

namespace {
/// NumPy dtype strings and the types they stand for.
constexpr std::pair<const char *, DataType> kDtypes[] = {
    {"<f4", DataType::F32}, {"<f2", DataType::F16}, {"|i1", DataType::I8},
    {"<i4", DataType::I32}, {"<i8", DataType::I64}, {"|b1", DataType::Bool},
    {"<f8", DataType::F64}, {"<i2", DataType::I16}, {"|u1", DataType::U8},
    {"<u2", DataType::U16}, {"<u4", DataType::U32}, {"<u8", DataType::U64}};

rt::Status bad(const std::string &path, const std::string &what) {
  return rt::Status(rt::StatusCode::InvalidArgument, "'" + path + "' " + what);
}

/// The stem of `path`: "output_0" for "/a/output_0.npy".
std::string stem(const std::string &path) {
  size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = name.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}
} // namespace

rt::StatusOr<HostTensor> readNpy(const std::string &path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return rt::Status(rt::StatusCode::InvalidArgument,
                      "cannot open '" + path + "'");
  if (!S_ISREG(info.st_mode))
    return bad(path, "is not a regular file");
  uint64_t fileBytes = static_cast<uint64_t>(info.st_size);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return rt::Status(rt::StatusCode::InvalidArgument,
                      "cannot open '" + path + "'");
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    return bad(path, "is not a .npy file");
  uint32_t headerLen = 0;
  uint64_t dataStart = 0;
  if (magic[6] == 1) {
    unsigned char len[2];
    in.read(reinterpret_cast<char *>(len), 2);
    headerLen = len[0] | len[1] << 8;
    dataStart = 10 + uint64_t(headerLen);
  } else if (magic[6] == 2 || magic[6] == 3) {
    unsigned char len[4];
    in.read(reinterpret_cast<char *>(len), 4);
    headerLen = len[0] | len[1] << 8 | len[2] << 16 | uint32_t(len[3]) << 24;
    dataStart = 12 + uint64_t(headerLen);
  } else {
    return bad(path, "has .npy format version " +
                         std::to_string(int(magic[6])) +
                         ", which kiln does not read");
  }
  if (!in || headerLen > (1u << 20) || dataStart > fileBytes)
    return bad(path, "has a malformed .npy header");
  std::string header(headerLen, '\0');
  if (!in.read(header.data(), headerLen))
    return bad(path, "is truncated");
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
    return bad(path, "has no dtype in its .npy header");
  descr = descr.substr(q1 + 1, q2 - q1 - 1);
  if (order.find("True") < order.find(','))
    return bad(path, "is in Fortran order; save it in C order");
  DataType type = DataType::F32;
  bool known = false;
  for (const auto &[name, t] : kDtypes)
    if (descr == name) {
      type = t;
      known = true;
    }
  if (!known)
    return bad(path, "has dtype '" + descr + "', which kiln does not read");
  size_t open = shapeText.find('('), close = shapeText.find(')');
  if (open == std::string::npos || close == std::string::npos || close < open)
    return bad(path, "has no shape in its .npy header");
  std::vector<int64_t> shape;
  std::string dims = shapeText.substr(open + 1, close - open - 1);
  uint64_t count = 1;
  for (size_t pos = 0; pos < dims.size();) {
    size_t comma = dims.find(',', pos);
    std::string d = dims.substr(
        pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (d.find_first_not_of(" ") != std::string::npos) {
      char *end = nullptr;
      long long v = std::strtoll(d.c_str(), &end, 10);
      if (v < 0 || end == d.c_str() ||
          (v > 0 && count > uint64_t(kMaxHostTensorBytes) / uint64_t(v)))
        return bad(path, "has an invalid shape");
      shape.push_back(v);
      count *= uint64_t(v);
    }
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  // The data must be exactly what the shape needs: checked before the
  // tensor is allocated, so a header cannot ask for memory the file lacks.
  uint64_t need = count * uint64_t(rt::dataTypeBytes(type));
  uint64_t have = fileBytes - dataStart;
  if (have < need)
    return bad(path, "holds fewer bytes than its shape needs (" +
                         std::to_string(have) + " of " + std::to_string(need) +
                         ")");
  if (have > need)
    return bad(path, "holds more bytes than its shape needs (" +
                         std::to_string(have) + " for " + std::to_string(need) +
                         ")");
  auto t = HostTensor::create(stem(path), type, shape);
  if (!t.isOk())
    return bad(path, t.status().message());
  in.seekg(static_cast<std::streamoff>(dataStart));
  if (!in.read(static_cast<char *>(t->data()), t->numBytes()))
    return bad(path, "cannot be read");
  return t;
}

rt::Status writeNpy(const std::string &path, const HostTensor &tensor) {
  const char *descr = nullptr;
  for (const auto &[name, t] : kDtypes)
    if (t == tensor.type)
      descr = name;
  if (!descr)
    return rt::Status(rt::StatusCode::InvalidArgument,
                      "cannot write '" + path + "': " +
                          elementTypeName(tensor.type) + " has no NumPy dtype");
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape.size(); ++i)
    shape += std::to_string(tensor.shape[i]) +
             (i + 1 < tensor.shape.size() ? ", " : "");
  shape += tensor.shape.size() == 1 ? ",)" : ")";
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts at a multiple of 64 bytes.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return rt::Status(rt::StatusCode::InvalidArgument,
                      "cannot write '" + path + "'");
  unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xff),
                          static_cast<unsigned char>(header.size() >> 8)};
  out.write("\x93NUMPY\x01\x00", 8);
  out.write(reinterpret_cast<const char *>(len), 2);
  out << header;
  out.write(static_cast<const char *>(tensor.data()), tensor.numBytes());
  if (!out)
    return rt::Status(rt::StatusCode::InvalidArgument,
                      "cannot write '" + path + "'");
  return rt::Status::ok();
}

} // namespace kiln::tooling
