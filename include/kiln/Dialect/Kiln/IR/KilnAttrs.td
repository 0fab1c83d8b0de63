//===- KilnAttrs.td - kiln enums and attributes ------------*- tablegen -*-===//
//
// Enumerations that select the variant of a layer (the activation of
// `kiln.activation`, the operation of `kiln.binary`, ...), as the TensorRT
// network definition does with ActivationType, ElementWiseOperation, etc.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNATTRS_TD
#define KILN_DIALECT_KILN_IR_KILNATTRS_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "mlir/IR/EnumAttr.td"

class Kiln_I32Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::mlir::kiln";
  let genSpecializedAttr = 0;
}

class Kiln_EnumAttr<EnumAttrInfo enumInfo, string mnemonic>
    : EnumAttr<Kiln_Dialect, enumInfo, mnemonic>;

def Kiln_ActivationKind : Kiln_I32Enum<"ActivationKind", "activation function", [
  I32EnumAttrCase<"Relu", 0, "relu">,
  I32EnumAttrCase<"LeakyRelu", 1, "leaky_relu">,
  I32EnumAttrCase<"Sigmoid", 2, "sigmoid">,
  I32EnumAttrCase<"Tanh", 3, "tanh">,
  I32EnumAttrCase<"Elu", 4, "elu">,
  I32EnumAttrCase<"Selu", 5, "selu">,
  I32EnumAttrCase<"Softplus", 6, "softplus">,
  I32EnumAttrCase<"Softsign", 7, "softsign">,
  I32EnumAttrCase<"Clip", 8, "clip">,
  I32EnumAttrCase<"HardSigmoid", 9, "hard_sigmoid">,
  I32EnumAttrCase<"GeluErf", 10, "gelu_erf">,
  I32EnumAttrCase<"GeluTanh", 11, "gelu_tanh">,
  I32EnumAttrCase<"ScaledTanh", 12, "scaled_tanh">,
  I32EnumAttrCase<"ThresholdedRelu", 13, "thresholded_relu">,
  I32EnumAttrCase<"HardSwish", 14, "hard_swish">
]>;
def Kiln_ActivationKindAttr : Kiln_EnumAttr<Kiln_ActivationKind, "activation">;

def Kiln_UnaryKind : Kiln_I32Enum<"UnaryKind", "unary elementwise operation", [
  I32EnumAttrCase<"Exp", 0, "exp">,
  I32EnumAttrCase<"Log", 1, "log">,
  I32EnumAttrCase<"Sqrt", 2, "sqrt">,
  I32EnumAttrCase<"Recip", 3, "recip">,
  I32EnumAttrCase<"Abs", 4, "abs">,
  I32EnumAttrCase<"Neg", 5, "neg">,
  I32EnumAttrCase<"Sin", 6, "sin">,
  I32EnumAttrCase<"Cos", 7, "cos">,
  I32EnumAttrCase<"Tan", 8, "tan">,
  I32EnumAttrCase<"Sinh", 9, "sinh">,
  I32EnumAttrCase<"Cosh", 10, "cosh">,
  I32EnumAttrCase<"Asin", 11, "asin">,
  I32EnumAttrCase<"Acos", 12, "acos">,
  I32EnumAttrCase<"Atan", 13, "atan">,
  I32EnumAttrCase<"Asinh", 14, "asinh">,
  I32EnumAttrCase<"Acosh", 15, "acosh">,
  I32EnumAttrCase<"Atanh", 16, "atanh">,
  I32EnumAttrCase<"Ceil", 17, "ceil">,
  I32EnumAttrCase<"Floor", 18, "floor">,
  I32EnumAttrCase<"Round", 19, "round">,
  I32EnumAttrCase<"Erf", 20, "erf">,
  I32EnumAttrCase<"Sign", 21, "sign">,
  I32EnumAttrCase<"Not", 22, "not">
]>;
def Kiln_UnaryKindAttr : Kiln_EnumAttr<Kiln_UnaryKind, "unary">;

def Kiln_BinaryKind : Kiln_I32Enum<"BinaryKind", "binary elementwise operation", [
  I32EnumAttrCase<"Add", 0, "add">,
  I32EnumAttrCase<"Sub", 1, "sub">,
  I32EnumAttrCase<"Mul", 2, "mul">,
  I32EnumAttrCase<"Div", 3, "div">,
  I32EnumAttrCase<"Pow", 4, "pow">,
  I32EnumAttrCase<"Max", 5, "max">,
  I32EnumAttrCase<"Min", 6, "min">,
  I32EnumAttrCase<"Mod", 7, "mod">,
  I32EnumAttrCase<"FMod", 8, "fmod">,
  I32EnumAttrCase<"And", 9, "and">,
  I32EnumAttrCase<"Or", 10, "or">,
  I32EnumAttrCase<"Xor", 11, "xor">,
  I32EnumAttrCase<"Equal", 12, "equal">,
  I32EnumAttrCase<"Less", 13, "less">,
  I32EnumAttrCase<"LessEqual", 14, "less_equal">,
  I32EnumAttrCase<"Greater", 15, "greater">,
  I32EnumAttrCase<"GreaterEqual", 16, "greater_equal">,
  I32EnumAttrCase<"ShiftLeft", 17, "shift_left">,
  I32EnumAttrCase<"ShiftRight", 18, "shift_right">
]>;
def Kiln_BinaryKindAttr : Kiln_EnumAttr<Kiln_BinaryKind, "binary">;

def Kiln_PoolKind : Kiln_I32Enum<"PoolKind", "pooling operation", [
  I32EnumAttrCase<"Max", 0, "max">,
  I32EnumAttrCase<"Average", 1, "average">
]>;
def Kiln_PoolKindAttr : Kiln_EnumAttr<Kiln_PoolKind, "pool">;

// Where the channels of a convolution's or pool's tensors are: after the
// batch (N x C x D1..Dk, as ONNX writes them; the filter K x C/groups x
// R1..Rk) or last (N x D1..Dk x C, "NHWC"; the filter R1..Rk x C/groups x K,
// linalg's conv_2d_nhwc_hwcf). kiln-channels-last chooses the second.
def Kiln_Layout : Kiln_I32Enum<"Layout", "where the channels of a layer's tensors are", [
  I32EnumAttrCase<"ChannelsFirst", 0, "channels_first">,
  I32EnumAttrCase<"ChannelsLast", 1, "channels_last">
]>;
def Kiln_LayoutAttr : Kiln_EnumAttr<Kiln_Layout, "layout">;

def Kiln_ReduceKind : Kiln_I32Enum<"ReduceKind", "reduction", [
  I32EnumAttrCase<"Sum", 0, "sum">,
  I32EnumAttrCase<"Mean", 1, "mean">,
  I32EnumAttrCase<"Max", 2, "max">,
  I32EnumAttrCase<"Min", 3, "min">,
  I32EnumAttrCase<"Prod", 4, "prod">,
  I32EnumAttrCase<"L1", 5, "l1">,
  I32EnumAttrCase<"L2", 6, "l2">,
  I32EnumAttrCase<"LogSum", 7, "log_sum">,
  I32EnumAttrCase<"LogSumExp", 8, "log_sum_exp">,
  I32EnumAttrCase<"SumSquare", 9, "sum_square">
]>;
def Kiln_ReduceKindAttr : Kiln_EnumAttr<Kiln_ReduceKind, "reduce">;

def Kiln_ArgReduceKind : Kiln_I32Enum<"ArgReduceKind", "which extreme an arg reduction finds", [
  I32EnumAttrCase<"Max", 0, "max">,
  I32EnumAttrCase<"Min", 1, "min">
]>;
def Kiln_ArgReduceKindAttr : Kiln_EnumAttr<Kiln_ArgReduceKind, "arg_reduce">;

def Kiln_ScaleMode : Kiln_I32Enum<"ScaleMode", "how scale weights apply", [
  I32EnumAttrCase<"Uniform", 0, "uniform">,
  I32EnumAttrCase<"Channel", 1, "channel">,
  I32EnumAttrCase<"Elementwise", 2, "elementwise">
]>;
def Kiln_ScaleModeAttr : Kiln_EnumAttr<Kiln_ScaleMode, "scale_mode">;

def Kiln_PadMode : Kiln_I32Enum<"PadMode", "padding mode", [
  I32EnumAttrCase<"Constant", 0, "constant">,
  I32EnumAttrCase<"Reflect", 1, "reflect">,
  I32EnumAttrCase<"Edge", 2, "edge">
]>;
def Kiln_PadModeAttr : Kiln_EnumAttr<Kiln_PadMode, "pad_mode">;

def Kiln_ResizeMode : Kiln_I32Enum<"ResizeMode", "resize interpolation", [
  I32EnumAttrCase<"Nearest", 0, "nearest">,
  I32EnumAttrCase<"Linear", 1, "linear">,
  I32EnumAttrCase<"Cubic", 2, "cubic">
]>;
def Kiln_ResizeModeAttr : Kiln_EnumAttr<Kiln_ResizeMode, "resize_mode">;

def Kiln_CoordinateTransform : Kiln_I32Enum<"CoordinateTransform",
    "how an output coordinate maps to an input coordinate in resize", [
  I32EnumAttrCase<"HalfPixel", 0, "half_pixel">,
  I32EnumAttrCase<"PytorchHalfPixel", 1, "pytorch_half_pixel">,
  I32EnumAttrCase<"AlignCorners", 2, "align_corners">,
  I32EnumAttrCase<"Asymmetric", 3, "asymmetric">,
  I32EnumAttrCase<"TfHalfPixelForNn", 4, "tf_half_pixel_for_nn">,
  I32EnumAttrCase<"HalfPixelSymmetric", 5, "half_pixel_symmetric">
]>;
def Kiln_CoordinateTransformAttr
    : Kiln_EnumAttr<Kiln_CoordinateTransform, "coordinate_transform">;

def Kiln_NearestRounding : Kiln_I32Enum<"NearestRounding",
    "how nearest-neighbour resize rounds a coordinate", [
  I32EnumAttrCase<"RoundPreferFloor", 0, "round_prefer_floor">,
  I32EnumAttrCase<"RoundPreferCeil", 1, "round_prefer_ceil">,
  I32EnumAttrCase<"Floor", 2, "floor">,
  I32EnumAttrCase<"Ceil", 3, "ceil">
]>;
def Kiln_NearestRoundingAttr
    : Kiln_EnumAttr<Kiln_NearestRounding, "nearest_rounding">;

#endif // KILN_DIALECT_KILN_IR_KILNATTRS_TD
