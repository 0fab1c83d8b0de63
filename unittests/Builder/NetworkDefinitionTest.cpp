//===- NetworkDefinitionTest.cpp - the network definition API ---*- C++ -*-===//
//
// Every layer kind of kiln::NetworkDefinition, built on random inputs and
// weights and run on kiln's CPU reference executor (Builder::runReference),
// against loops written here from the layers' definitions (in double);
// misuse that must be an error, never a crash; and a plan built from a
// network (the GPU runs plans in the digits sample).
//
//===----------------------------------------------------------------------===//

#include "kiln/Builder/Builder.h"
#include "kiln/runtime/Plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace kiln;
using ::testing::HasSubstr;
using tooling::HostTensor;

namespace {

class CapturingLogger : public rt::Logger {
public:
  void log(Severity, const std::string &message) override {
    messages.push_back(message);
  }
  std::vector<std::string> messages;
};

std::vector<float> randomValues(size_t n, unsigned seed, float lo = -1,
                                float hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

Weights weights(const std::vector<float> &v) {
  return {DataType::F32, v.data(), int64_t(v.size())};
}

int64_t product(const Dims &d) {
  int64_t n = 1;
  for (int64_t x : d)
    n *= x;
  return n;
}

class NetworkTest : public ::testing::Test {
protected:
  /// An input of `dims` with random values.
  Tensor input(const std::string &name, const Dims &dims) {
    inputs.push_back(randomValues(product(dims), 100 + inputs.size()));
    shapes.push_back(dims);
    names.push_back(name);
    return network.addInput(name, DataType::F32, dims);
  }
  /// Runs the network on the reference executor; output `i` as floats.
  std::vector<std::vector<float>> run() {
    std::vector<HostTensor> in, out;
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto t = HostTensor::create(names[i], DataType::F32, shapes[i]);
      EXPECT_TRUE(t.isOk());
      std::memcpy(t->data(), inputs[i].data(), inputs[i].size() * 4);
      in.push_back(std::move(*t));
    }
    rt::Status s = builder.runReference(network, in, out);
    EXPECT_TRUE(s) << s.toString();
    std::vector<std::vector<float>> result;
    for (const HostTensor &t : out) {
      std::vector<float> v(t.numElements());
      for (int64_t i = 0; i < t.numElements(); ++i)
        v[i] = float(t.at(i));
      result.push_back(v);
    }
    return result;
  }
  /// Within 1e-4 of the expected values' magnitude (f32 against double).
  static void expectClose(const std::vector<float> &actual,
                          const std::vector<double> &expected) {
    ASSERT_EQ(actual.size(), expected.size());
    double scale = 1e-6;
    for (double e : expected)
      scale = std::max(scale, std::abs(e));
    for (size_t i = 0; i < actual.size(); ++i)
      ASSERT_NEAR(actual[i], expected[i], 1e-4 * scale) << "at " << i;
  }

  CapturingLogger logger;
  NetworkDefinition network{logger};
  Builder builder{logger};
  std::vector<std::vector<float>> inputs;
  std::vector<Dims> shapes;
  std::vector<std::string> names;
};

/// Convolution or deconvolution of x (N C H W) in double.
std::vector<double> convolve(const std::vector<float> &x, const Dims &xd,
                             const std::vector<float> &w, int64_t k, int64_t kh,
                             int64_t kw, const std::vector<float> &bias,
                             int64_t stride, int64_t pad, int64_t groups,
                             bool transposed, Dims &outDims) {
  int64_t n = xd[0], c = xd[1], h = xd[2], wd = xd[3];
  int64_t oh = transposed ? (h - 1) * stride - 2 * pad + kh
                          : (h + 2 * pad - kh) / stride + 1;
  int64_t ow = transposed ? (wd - 1) * stride - 2 * pad + kw
                          : (wd + 2 * pad - kw) / stride + 1;
  outDims = {n, k, oh, ow};
  std::vector<double> y(n * k * oh * ow, 0.0);
  int64_t cg = c / groups, kg = k / groups;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t kk = 0; kk < kg; ++kk)
        for (int64_t cc = 0; cc < cg; ++cc)
          for (int64_t i = 0; i < h; ++i)
            for (int64_t j = 0; j < wd; ++j)
              for (int64_t r = 0; r < kh; ++r)
                for (int64_t s = 0; s < kw; ++s) {
                  int64_t ko = g * kg + kk, ci = g * cg + cc;
                  if (!transposed) {
                    // Output (i, j) reads input (i*stride-pad+r, ...).
                    if (i >= oh || j >= ow)
                      continue;
                    int64_t ii = i * stride - pad + r,
                            jj = j * stride - pad + s;
                    if (ii < 0 || ii >= h || jj < 0 || jj >= wd)
                      continue;
                    y[((b * k + ko) * oh + i) * ow + j] +=
                        double(x[((b * c + ci) * h + ii) * wd + jj]) *
                        w[((ko * cg + cc) * kh + r) * kw + s];
                  } else {
                    int64_t oi = i * stride - pad + r,
                            oj = j * stride - pad + s;
                    if (oi < 0 || oi >= oh || oj < 0 || oj >= ow)
                      continue;
                    y[((b * k + ko) * oh + oi) * ow + oj] +=
                        double(x[((b * c + ci) * h + i) * wd + j]) *
                        w[((ci * kg + kk) * kh + r) * kw + s];
                  }
                }
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ko = 0; ko < k; ++ko)
      for (int64_t p = 0; p < oh * ow; ++p)
        y[(b * k + ko) * oh * ow + p] += bias.empty() ? 0.0 : bias[ko];
  return y;
}

TEST_F(NetworkTest, ConvolutionWithGroupsStridePaddingAndLeakyRelu) {
  Tensor x = input("x", {2, 4, 9, 9});
  auto w = randomValues(6 * 2 * 3 * 3, 1), b = randomValues(6, 2);
  ConvolutionLayer conv =
      network.addConvolution(x, 6, {3, 3}, weights(w), weights(b));
  conv.setStride({2, 2}).setPadding({1, 1}).setNbGroups(2);
  EXPECT_EQ(conv.getOutput().getDimensions(), (Dims{2, 6, 5, 5}));
  ActivationLayer act =
      network.addActivation(conv.getOutput(), ActivationType::LeakyRelu);
  act.setAlpha(0.2f);
  ASSERT_TRUE(network.markOutput(act.getOutput()));
  Dims d;
  auto expected =
      convolve(inputs[0], shapes[0], w, 6, 3, 3, b, 2, 1, 2, false, d);
  for (double &v : expected)
    v = v < 0 ? 0.2 * v : v;
  expectClose(run()[0], expected);
}

TEST_F(NetworkTest, DeconvolutionWithStride) {
  Tensor x = input("x", {1, 3, 4, 5});
  auto w = randomValues(3 * 2 * 3 * 3, 3), b = randomValues(2, 4);
  DeconvolutionLayer deconv =
      network.addDeconvolution(x, 2, {3, 3}, weights(w), weights(b));
  deconv.setStride({2, 2});
  network.markOutput(deconv.getOutput());
  Dims d;
  auto expected =
      convolve(inputs[0], shapes[0], w, 2, 3, 3, b, 2, 0, 1, true, d);
  EXPECT_EQ(deconv.getOutput().getDimensions(), d);
  expectClose(run()[0], expected);
}

TEST_F(NetworkTest, MaxAndAveragePooling) {
  Tensor x = input("x", {1, 2, 7, 7});
  PoolingLayer max = network.addPooling(x, PoolingType::Max, {2, 2});
  PoolingLayer avg = network.addPooling(x, PoolingType::Average, {3, 3});
  avg.setStride({2, 2}).setPadding({1, 1}); // padding left out of the count
  network.markOutput(max.getOutput());
  network.markOutput(avg.getOutput());
  EXPECT_EQ(max.getOutput().getDimensions(), (Dims{1, 2, 3, 3}));
  EXPECT_EQ(avg.getOutput().getDimensions(), (Dims{1, 2, 4, 4}));
  const std::vector<float> &in = inputs[0];
  std::vector<double> m, a;
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 3; ++j) {
        double best = -1e30;
        for (int64_t r = 0; r < 2; ++r)
          for (int64_t s = 0; s < 2; ++s)
            best =
                std::max(best, double(in[(c * 7 + 2 * i + r) * 7 + 2 * j + s]));
        m.push_back(best);
      }
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 4; ++j) {
        double sum = 0;
        int count = 0;
        for (int64_t r = 0; r < 3; ++r)
          for (int64_t s = 0; s < 3; ++s) {
            int64_t ii = 2 * i - 1 + r, jj = 2 * j - 1 + s;
            if (ii < 0 || ii >= 7 || jj < 0 || jj >= 7)
              continue;
            sum += in[(c * 7 + ii) * 7 + jj];
            ++count;
          }
        a.push_back(sum / count);
      }
  auto out = run();
  expectClose(out[0], m);
  expectClose(out[1], a);
}

TEST_F(NetworkTest, FullyConnectedThenSoftMax) {
  Tensor x = input("x", {3, 2, 2, 2});
  auto w = randomValues(5 * 8, 5), b = randomValues(5, 6);
  Layer fc = network.addFullyConnected(x, 5, weights(w), weights(b));
  SoftMaxLayer sm = network.addSoftMax(fc.getOutput());
  sm.setAxes(1u << 1);
  network.markOutput(sm.getOutput());
  std::vector<double> expected;
  for (int64_t n = 0; n < 3; ++n) {
    std::vector<double> z(5);
    for (int64_t k = 0; k < 5; ++k) {
      z[k] = b[k];
      for (int64_t i = 0; i < 8; ++i)
        z[k] += double(inputs[0][n * 8 + i]) * w[k * 8 + i];
    }
    double top = *std::max_element(z.begin(), z.end()), sum = 0;
    for (double &v : z)
      sum += (v = std::exp(v - top));
    for (double v : z)
      expected.push_back(v / sum);
  }
  expectClose(run()[0], expected);
}

TEST_F(NetworkTest, ElementWiseWithBroadcastConstantsAndUnary) {
  Tensor x = input("x", {2, 3, 2, 2});
  auto c = randomValues(3, 7);
  Layer k = network.addConstant({1, 3, 1, 1}, weights(c));
  Layer sum =
      network.addElementWise(x, k.getOutput(), ElementWiseOperation::Sum);
  Layer prod =
      network.addElementWise(sum.getOutput(), x, ElementWiseOperation::Prod);
  Layer e = network.addUnary(prod.getOutput(), UnaryOperation::Exp);
  network.markOutput(e.getOutput());
  std::vector<double> expected;
  for (int64_t i = 0; i < 24; ++i) {
    double v = inputs[0][i];
    expected.push_back(std::exp((v + c[(i / 4) % 3]) * v));
  }
  expectClose(run()[0], expected);
}

TEST_F(NetworkTest, ConcatenationAndShuffle) {
  Tensor a = input("a", {1, 2, 2, 3});
  Tensor b = input("b", {1, 1, 2, 3});
  ConcatenationLayer cat = network.addConcatenation({a, b});
  ShuffleLayer shuffle = network.addShuffle(cat.getOutput());
  shuffle.setFirstTranspose({0, 2, 3, 1}).setReshapeDimensions({0, -1});
  EXPECT_EQ(shuffle.getOutput().getDimensions(), (Dims{1, 18}));
  network.markOutput(shuffle.getOutput());
  // cat[c][h][w], c < 2 from a, then b; out[(h*3+w)*3+c].
  std::vector<double> expected(18);
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t w = 0; w < 3; ++w)
        expected[(h * 3 + w) * 3 + c] =
            c < 2 ? inputs[0][(c * 2 + h) * 3 + w] : inputs[1][h * 3 + w];
  expectClose(run()[0], expected);
}

TEST_F(NetworkTest, ReduceAverageAndChannelScale) {
  Tensor x = input("x", {2, 3, 4, 5});
  Layer mean = network.addReduce(x, ReduceOperation::Avg, 0b1100, true);
  EXPECT_EQ(mean.getOutput().getDimensions(), (Dims{2, 3, 1, 1}));
  auto shift = randomValues(3, 8), scale = randomValues(3, 9);
  Layer s = network.addScale(x, ScaleMode::Channel, weights(shift),
                             weights(scale), Weights{});
  network.markOutput(mean.getOutput());
  network.markOutput(s.getOutput());
  std::vector<double> m(6, 0.0), y;
  for (int64_t i = 0; i < 120; ++i) {
    int64_t c = (i / 20) % 3;
    m[i / 20] += inputs[0][i] / 20.0;
    y.push_back(inputs[0][i] * double(scale[c]) + shift[c]);
  }
  auto out = run();
  expectClose(out[0], m);
  expectClose(out[1], y);
}

TEST_F(NetworkTest, PaddingAndLRN) {
  Tensor x = input("x", {1, 5, 2, 2});
  Layer pad = network.addPadding(x, {1, 0}, {0, 2});
  EXPECT_EQ(pad.getOutput().getDimensions(), (Dims{1, 5, 3, 4}));
  Layer lrn = network.addLRN(x, 3, 1e-1f, 0.75f, 2.0f);
  network.markOutput(pad.getOutput());
  network.markOutput(lrn.getOutput());
  std::vector<double> p(60, 0.0), l(20);
  for (int64_t c = 0; c < 5; ++c)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t w = 0; w < 2; ++w) {
        double v = inputs[0][(c * 2 + h) * 2 + w];
        p[(c * 3 + h + 1) * 4 + w] = v;
        double sq = 0;
        for (int64_t d = c - 1; d <= c + 1; ++d)
          if (d >= 0 && d < 5) {
            double u = inputs[0][(d * 2 + h) * 2 + w];
            sq += u * u;
          }
        l[(c * 2 + h) * 2 + w] = v / std::pow(2.0 + 0.1 / 3 * sq, 0.75);
      }
  auto out = run();
  expectClose(out[0], p);
  expectClose(out[1], l);
}

TEST_F(NetworkTest, MatrixMultiplyAndGather) {
  Tensor a = input("a", {2, 3, 4});
  auto bv = randomValues(5 * 4, 10);
  Layer b = network.addConstant({5, 4}, weights(bv));
  Layer mm = network.addMatrixMultiply(a, false, b.getOutput(), true);
  EXPECT_EQ(mm.getOutput().getDimensions(), (Dims{2, 3, 5}));
  std::vector<int64_t> idx = {4, 0, 4};
  Layer indices =
      network.addConstant({3}, Weights{DataType::I64, idx.data(), 3});
  Layer g = network.addGather(mm.getOutput(), indices.getOutput(), 2);
  network.markOutput(g.getOutput());
  std::vector<double> expected;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j : idx) {
        double s = 0;
        for (int64_t k = 0; k < 4; ++k)
          s += double(inputs[0][(n * 3 + i) * 4 + k]) * bv[j * 4 + k];
        expected.push_back(s);
      }
  expectClose(run()[0], expected);
}

TEST_F(NetworkTest, LayerNormalization) {
  Tensor x = input("x", {2, 3, 8});
  auto sv = randomValues(8, 11), bv = randomValues(8, 12);
  Layer scale = network.addConstant({8}, weights(sv));
  Layer bias = network.addConstant({8}, weights(bv));
  NormalizationLayer norm =
      network.addNormalization(x, scale.getOutput(), bias.getOutput(), 1u << 2);
  norm.setEpsilon(1e-3f);
  network.markOutput(norm.getOutput());
  std::vector<double> expected;
  for (int64_t r = 0; r < 6; ++r) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < 8; ++i)
      mean += inputs[0][r * 8 + i] / 8.0;
    for (int64_t i = 0; i < 8; ++i)
      var += std::pow(inputs[0][r * 8 + i] - mean, 2) / 8.0;
    for (int64_t i = 0; i < 8; ++i)
      expected.push_back((inputs[0][r * 8 + i] - mean) / std::sqrt(var + 1e-3) *
                             sv[i] +
                         bv[i]);
  }
  expectClose(run()[0], expected);
}

TEST_F(NetworkTest, MisuseIsAnErrorNeverACrash) {
  // Whether an error of the network (misuse first, then the layers that do
  // not build) contains `part`.
  auto saw = [&](const std::string &part) {
    for (const std::string &e : network.getErrors())
      if (e.find(part) != std::string::npos)
        return true;
    ADD_FAILURE() << "no error contains '" << part << "'";
    return false;
  };
  Tensor x = network.addInput("x", DataType::F32, {1, 3, 8, 8});
  ASSERT_TRUE(x);
  // A duplicate name, a zero dimension.
  EXPECT_FALSE(network.addInput("x", DataType::F32, {1}));
  EXPECT_FALSE(network.addInput("y", DataType::F32, {1, 0}));
  // Short and missing weights.
  std::vector<float> w(10);
  EXPECT_FALSE(network.addConvolution(x, 4, {3, 3}, weights(w))
                   .getOutput()
                   .getDimensions()
                   .size());
  EXPECT_TRUE(saw("kernel weights have 10 values, expected 108 "
                  "(4x3x3x3)"));
  EXPECT_FALSE(network.addFullyConnected(x, 4, Weights{}));
  // A dimension mismatch, named by the layer.
  Tensor v = network.addInput("v", DataType::F32, {4, 5});
  Layer bad = network.addElementWise(x, v, ElementWiseOperation::Sum);
  bad.setName("add_mismatch");
  EXPECT_TRUE(bad.getOutput().getDimensions().empty());
  EXPECT_TRUE(saw("layer 'add_mismatch' (element-wise)"));
  // A tensor of another network.
  NetworkDefinition other(logger);
  Tensor foreign = other.addInput("z", DataType::F32, {1, 3, 8, 8});
  EXPECT_FALSE(network.addActivation(foreign, ActivationType::Relu));
  EXPECT_TRUE(saw("the tensor is not one of this network"));
  // No outputs; errors stop the build with the first.
  auto plan = builder.buildSerializedPlan(other, BuilderConfig());
  ASSERT_FALSE(plan.isOk());
  EXPECT_THAT(plan.status().message(), HasSubstr("no outputs"));
  plan = builder.buildSerializedPlan(network, BuilderConfig());
  ASSERT_FALSE(plan.isOk());
  EXPECT_THAT(plan.status().message(), HasSubstr("error(s), the first"));
  // Handles outlive their network: invalid, not dangling.
  Tensor dangling;
  Layer danglingLayer;
  {
    NetworkDefinition gone(logger);
    dangling = gone.addInput("g", DataType::F32, {2});
    danglingLayer = gone.addActivation(dangling, ActivationType::Relu);
    ASSERT_TRUE(dangling && danglingLayer);
  }
  EXPECT_FALSE(dangling);
  EXPECT_FALSE(danglingLayer);
  EXPECT_TRUE(dangling.getDimensions().empty());
  EXPECT_FALSE(danglingLayer.getOutput());
  EXPECT_FALSE(network.markOutput(dangling));
}

TEST_F(NetworkTest, BuildsAPlan) {
  Tensor x = input("x", {1, 1, 8, 8});
  auto w = randomValues(4 * 9, 13);
  ConvolutionLayer conv = network.addConvolution(x, 4, {3, 3}, weights(w));
  Layer relu = network.addActivation(conv.getOutput(), ActivationType::Relu);
  relu.getOutput().setName("y");
  network.markOutput(relu.getOutput());
  BuilderConfig config;
  config.int8 = true;
  auto refused = builder.buildSerializedPlan(network, config);
  ASSERT_FALSE(refused.isOk());
  EXPECT_THAT(refused.status().message(), HasSubstr("INT8 is not supported"));
  config.int8 = false;
  auto plan = builder.buildSerializedPlan(network, config);
  ASSERT_TRUE(plan.isOk()) << plan.status().toString();
  auto contents = rt::readPlan(plan->data(), plan->size());
  ASSERT_TRUE(contents.isOk()) << contents.status().toString();
  ASSERT_EQ(contents->tensors.size(), 2u);
  EXPECT_EQ(contents->tensors[0].name, "x");
  EXPECT_EQ(contents->tensors[1].name, "y");
  EXPECT_EQ(contents->tensors[1].shape, (std::vector<int64_t>{1, 4, 6, 6}));
}

} // namespace
