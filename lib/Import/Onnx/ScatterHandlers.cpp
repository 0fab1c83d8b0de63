//===- ScatterHandlers.cpp - ONNX scatters with constant indices -*- C++
//-*-===//
//
// Scatter, ScatterElements and ScatterND whose indices are constant (an
// initializer, a Constant, or folded from shapes): the importer works out
// which update element lands on each data element, and the scatter becomes
// gathers from the flattened updates and selects over the flattened data,
// one round per update that lands on an element (the first round takes the
// first update of every element, the next the second, ...), combined by the
// reduction (none keeps the last, as a serial loop would).
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::onnx_import;

namespace {

/// The data element (flat) each update element (flat) lands on.
using Targets = SmallVector<int64_t>;

/// Builds the scatter of `updates` into `data` at `targets` with
/// `reduction` (none, add, mul, max or min).
LogicalResult scatterFlat(NodeContext &nc, const Targets &targets) {
  auto dataType = nc.inputType(0);
  auto updatesType = nc.inputType(2);
  if (updatesType.getElementType() != dataType.getElementType())
    return nc.fail("expects updates of the data's type");
  std::string reduction = nc.getString("reduction", "none");
  BinaryKind kind = BinaryKind::Add;
  if (reduction == "mul")
    kind = BinaryKind::Mul;
  else if (reduction == "max")
    kind = BinaryKind::Max;
  else if (reduction == "min")
    kind = BinaryKind::Min;
  else if (reduction != "add" && reduction != "none")
    return nc.fail("unknown reduction '" + reduction + "'");
  bool combine = reduction != "none";
  if (combine && dataType.getElementType().isInteger(1))
    return nc.fail("a reduction of booleans is not supported");

  int64_t size = dataType.getNumElements();
  // rounds[r][t]: the r-th update (flat) landing on data element t, or -1.
  SmallVector<SmallVector<int64_t>> rounds;
  SmallVector<int64_t> landed(size, 0);
  for (auto [u, t] : llvm::enumerate(targets)) {
    int64_t r = landed[t]++;
    if (r >= 64)
      return nc.unsupported("more than 64 updates land on one element");
    if (r == static_cast<int64_t>(rounds.size()))
      rounds.emplace_back(size, -1);
    rounds[r][t] = static_cast<int64_t>(u);
  }
  FailureOr<Value> out = nc.reshape(nc.input(0), {size});
  FailureOr<Value> flatUpdates =
      failed(out) ? out
                  : nc.reshape(nc.input(2), {updatesType.getNumElements()});
  if (failed(flatUpdates))
    return failure();
  auto boolType = RankedTensorType::get({size}, nc.b.getI1Type());
  for (const SmallVector<int64_t> &round : rounds) {
    SmallVector<int64_t> source;
    SmallVector<bool> hit;
    for (int64_t u : round) {
      source.push_back(std::max<int64_t>(u, 0));
      hit.push_back(u >= 0);
    }
    FailureOr<Value> picked =
        nc.create<GatherOp>({*flatUpdates, nc.i64Constant({size}, source)},
                            {nc.named("axis", nc.b.getI64IntegerAttr(0))});
    if (succeeded(picked) && combine)
      picked = nc.binary(kind, *out, *picked);
    if (failed(picked))
      return failure();
    out = nc.create<SelectOp>(
        {nc.constant(DenseElementsAttr::get(boolType, ArrayRef(hit))), *picked,
         *out});
    if (failed(out))
      return failure();
  }
  return nc.result(nc.reshape(*out, dataType.getShape()));
}

/// Row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Scatter (9) and ScatterElements (11; 16's reduction add/mul, 18's
/// max/min): indices and updates of one shape; update p lands on p with
/// p[axis] replaced by indices[p].
LogicalResult scatterElements(NodeContext &nc) {
  if (failed(nc.requireInputs(3)))
    return failure();
  auto dataType = nc.inputType(0);
  auto indicesType = nc.inputType(1);
  int64_t rank = dataType.getRank();
  if (indicesType.getShape() != nc.inputType(2).getShape() ||
      indicesType.getRank() != rank)
    return nc.fail("expects indices and updates of one shape, of the data's "
                   "rank");
  FailureOr<int64_t> axis = nc.axis(nc.getInt("axis", 0), rank, "axis");
  FailureOr<SmallVector<int64_t>> indices =
      failed(axis) ? FailureOr<SmallVector<int64_t>>(failure())
                   : nc.intInput(1);
  if (failed(indices))
    return failure();
  ArrayRef<int64_t> shape = indicesType.getShape();
  SmallVector<int64_t> dataStrides = stridesOf(dataType.getShape());
  int64_t extent = dataType.getDimSize(*axis);
  Targets targets;
  SmallVector<int64_t> at(rank, 0);
  for (int64_t index : *indices) {
    if (index < -extent || index >= extent)
      return nc.fail("index " + Twine(index) + " is out of range for axis " +
                     Twine(*axis) + " of size " + Twine(extent));
    int64_t t = 0;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t coord = d == *axis ? (index < 0 ? index + extent : index) : at[d];
      if (coord >= dataType.getDimSize(d))
        return nc.fail("updates reach past the data along dimension " +
                       Twine(d));
      t += coord * dataStrides[d];
    }
    targets.push_back(t);
    for (int64_t d = rank - 1; d >= 0 && ++at[d] == shape[d]; --d)
      at[d] = 0;
  }
  return scatterFlat(nc, targets);
}

/// ScatterND (11; 16's add/mul, 18's max/min): indices (..., q) address
/// slices data[i0, ..., iq-1, :, ...]; updates are indices.shape[:-1] +
/// data.shape[q:].
LogicalResult scatterND(NodeContext &nc) {
  if (failed(nc.requireInputs(3)))
    return failure();
  auto dataType = nc.inputType(0);
  auto indicesType = nc.inputType(1);
  int64_t rank = dataType.getRank();
  if (indicesType.getRank() < 1)
    return nc.fail("expects indices of rank >= 1");
  int64_t q = indicesType.getShape().back();
  if (q < 1 || q > rank)
    return nc.fail("the last dimension of indices (" + Twine(q) +
                   ") must be within 1.." + Twine(rank));
  SmallVector<int64_t> expected(indicesType.getShape().drop_back());
  llvm::append_range(expected, dataType.getShape().drop_front(q));
  if (nc.inputType(2).getShape() != ArrayRef<int64_t>(expected))
    return nc.fail("expects updates of shape " + formatDims(expected));
  FailureOr<SmallVector<int64_t>> indices = nc.intInput(1);
  if (failed(indices))
    return failure();
  SmallVector<int64_t> dataStrides = stridesOf(dataType.getShape());
  int64_t sliceSize = q < rank ? dataStrides[q - 1] : 1;
  Targets targets;
  for (size_t i = 0; i < indices->size(); i += q) {
    int64_t base = 0;
    for (int64_t d = 0; d < q; ++d) {
      int64_t index = (*indices)[i + d], extent = dataType.getDimSize(d);
      if (index < -extent || index >= extent)
        return nc.fail("index " + Twine(index) +
                       " is out of range for "
                       "dimension " +
                       Twine(d) + " of size " + Twine(extent));
      base += (index < 0 ? index + extent : index) * dataStrides[d];
    }
    for (int64_t k = 0; k < sliceSize; ++k)
      targets.push_back(base + k);
  }
  return scatterFlat(nc, targets);
}

} // namespace

void mlir::kiln::onnx_import::appendScatterHandlers(
    std::vector<HandlerEntry> &table) {
  static const HandlerEntry entries[] = {
      {"Scatter", 9, scatterElements},
      {"ScatterElements", 11, scatterElements},
      {"ScatterND", 11, scatterND},
  };
  table.insert(table.end(), std::begin(entries), std::end(entries));
}
