//===- DriverTest.cpp - loading the CUDA driver -----------------*- C++ -*-===//
//
// Every way of loading the driver: a missing library, a library that is not a
// driver, a driver with no device, a failing cuInit, a working (stand-in)
// driver, one that has only the old name of a versioned entry point, and
// finally the machine's real driver when it has one.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Driver.h"
#include "kiln/runtime/Runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

using kiln::rt::Driver;
using kiln::rt::StatusCode;
using ::testing::HasSubstr;

namespace {

/// Sets the fake driver's environment for one test.
class FakeDriverTest : public ::testing::Test {
protected:
  void configure(int initResult, int devices) {
    setenv("KILN_FAKE_CUDA_INIT", std::to_string(initResult).c_str(), 1);
    setenv("KILN_FAKE_CUDA_DEVICES", std::to_string(devices).c_str(), 1);
  }
  void TearDown() override {
    unsetenv("KILN_FAKE_CUDA_INIT");
    unsetenv("KILN_FAKE_CUDA_DEVICES");
  }
};

TEST(DriverLoad, MissingLibraryIsDriverUnavailable) {
  auto driver = Driver::load("/nonexistent/dir/libcuda.so.1");
  ASSERT_FALSE(driver.isOk());
  EXPECT_EQ(driver.status().code(), StatusCode::DriverUnavailable);
  EXPECT_THAT(driver.status().message(),
              HasSubstr("cannot load the CUDA driver library "
                        "'/nonexistent/dir/libcuda.so.1'"));
  EXPECT_THAT(driver.status().toString(), HasSubstr("DriverUnavailable: "));
}

TEST(DriverLoad, LibraryWithoutEntryPointsIsNotADriver) {
  auto driver = Driver::load(KILN_FAKE_CUDA_INCOMPLETE);
  ASSERT_FALSE(driver.isOk());
  EXPECT_EQ(driver.status().code(), StatusCode::DriverUnavailable);
  EXPECT_THAT(driver.status().message(),
              HasSubstr("is not a usable CUDA driver: entry point "
                        "'cuDeviceGetCount' not found"));
}

TEST(DriverLoad, MissingVersionedEntryPointNamesBothNames) {
  auto driver = Driver::load(KILN_FAKE_CUDA_NO_ELAPSED_TIME);
  ASSERT_FALSE(driver.isOk());
  EXPECT_EQ(driver.status().code(), StatusCode::DriverUnavailable);
  EXPECT_EQ(driver.status().message(),
            std::string("'") + KILN_FAKE_CUDA_NO_ELAPSED_TIME +
                "' is not a usable CUDA driver: entry point "
                "'cuEventElapsedTime_v2' (or 'cuEventElapsedTime') not found");
}

// Drivers before CUDA 12.8 export only cuEventElapsedTime: the fallback of
// DriverSymbols.def is resolved and called.
TEST_F(FakeDriverTest, OldDriverUsesTheUnversionedName) {
  configure(0, 1);
  auto runtime =
      kiln::rt::Runtime::create(nullptr, 0, KILN_FAKE_CUDA_LEGACY_ELAPSED_TIME);
  ASSERT_TRUE(runtime.isOk()) << runtime.status().toString();
  auto stream = (*runtime)->createStream();
  auto start = (*runtime)->createEvent(), end = (*runtime)->createEvent();
  ASSERT_TRUE(stream.isOk() && start.isOk() && end.isOk());
  ASSERT_TRUE((*runtime)->recordEvent(*start, *stream));
  ASSERT_TRUE((*runtime)->recordEvent(*end, *stream));
  auto ms = (*runtime)->elapsedMs(*start, *end);
  ASSERT_TRUE(ms.isOk()) << ms.status().toString();
  EXPECT_GE(*ms, 0.0f);
  EXPECT_TRUE((*runtime)->destroyEvent(*start));
  EXPECT_TRUE((*runtime)->destroyEvent(*end));
  EXPECT_TRUE((*runtime)->destroyStream(*stream));
}

TEST_F(FakeDriverTest, InitNoDeviceIsNoDevice) {
  configure(/*CUDA_ERROR_NO_DEVICE*/ 100, 0);
  auto driver = Driver::load(KILN_FAKE_CUDA);
  ASSERT_FALSE(driver.isOk());
  EXPECT_EQ(driver.status().code(), StatusCode::NoDevice);
  EXPECT_EQ(driver.status().message(),
            "no CUDA device present: cuInit failed with CUDA_ERROR_NO_DEVICE "
            "(no CUDA-capable device is detected)");
}

TEST_F(FakeDriverTest, ZeroDevicesIsNoDevice) {
  configure(0, 0);
  auto driver = Driver::load(KILN_FAKE_CUDA);
  ASSERT_FALSE(driver.isOk());
  EXPECT_EQ(driver.status().code(), StatusCode::NoDevice);
  EXPECT_THAT(driver.status().message(), HasSubstr("reports 0 devices"));
}

TEST_F(FakeDriverTest, InitFailureIsDriverErrorWithCudaName) {
  configure(/*CUDA_ERROR_SYSTEM_DRIVER_MISMATCH*/ 803, 1);
  auto driver = Driver::load(KILN_FAKE_CUDA);
  ASSERT_FALSE(driver.isOk());
  EXPECT_EQ(driver.status().code(), StatusCode::DriverError);
  EXPECT_THAT(
      driver.status().message(),
      HasSubstr("cuInit failed with CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"));
}

TEST_F(FakeDriverTest, UnnamedErrorCodeIsReportedByNumber) {
  configure(9999, 1); // no CUresult has this value
  auto driver = Driver::load(KILN_FAKE_CUDA);
  ASSERT_FALSE(driver.isOk());
  EXPECT_EQ(driver.status().message(), "cuInit failed with CUDA error 9999");
}

TEST_F(FakeDriverTest, WorkingDriverDescribesDevices) {
  configure(0, 2);
  auto driver = Driver::load(KILN_FAKE_CUDA);
  ASSERT_TRUE(driver.isOk()) << driver.status().toString();
  EXPECT_EQ((*driver)->deviceCount(), 2);
  EXPECT_EQ((*driver)->driverVersion(), 13000);
  auto info = (*driver)->device(1);
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  EXPECT_EQ(info->ordinal, 1);
  EXPECT_EQ(info->name, "Kiln Fake GPU");
  EXPECT_EQ(info->smArch(), "sm_90");
  EXPECT_EQ(info->multiprocessorCount, 132);
  EXPECT_EQ(info->totalMemoryBytes, size_t(141) << 30);
}

TEST_F(FakeDriverTest, DeviceOrdinalOutOfRange) {
  configure(0, 1);
  auto driver = Driver::load(KILN_FAKE_CUDA);
  ASSERT_TRUE(driver.isOk()) << driver.status().toString();
  for (int bad : {-1, 1}) {
    auto info = (*driver)->device(bad);
    ASSERT_FALSE(info.isOk());
    EXPECT_EQ(info.status().code(), StatusCode::InvalidArgument);
    EXPECT_EQ(info.status().message(),
              "device ordinal " + std::to_string(bad) +
                  " is out of range: the driver reports 1 device(s)");
  }
}

/// The machine's own driver: on a GPU machine it must load and describe a
/// device; elsewhere the test says why it is skipped.
TEST(SystemDriver, LoadsOrExplainsWhyNot) {
  auto driver = Driver::load();
  if (!driver.isOk()) {
    StatusCode code = driver.status().code();
    EXPECT_TRUE(code == StatusCode::DriverUnavailable ||
                code == StatusCode::NoDevice)
        << driver.status().toString();
    EXPECT_FALSE(driver.status().message().empty());
    GTEST_SKIP() << "no usable CUDA driver here: "
                 << driver.status().toString();
  }
  ASSERT_GE((*driver)->deviceCount(), 1);
  auto info = (*driver)->device(0);
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  EXPECT_FALSE(info->name.empty());
  EXPECT_GE(info->computeCapabilityMajor, 5);
  EXPECT_GT(info->totalMemoryBytes, 0u);
}

} // namespace
