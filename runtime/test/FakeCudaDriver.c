/*===- FakeCudaDriver.c - a stand-in libcuda for tests --------------------===*
 *
 * Implements the driver entry points the runtime resolves, with behaviour set
 * by environment variables, so tests can check every way loading the driver
 * can go on a machine with no GPU:
 *   KILN_FAKE_CUDA_INIT     the CUresult cuInit returns (default 0)
 *   KILN_FAKE_CUDA_DEVICES  how many devices it reports (default 0)
 * Built with KILN_FAKE_CUDA_INCOMPLETE it lacks cuDeviceGetCount and later.
 *
 *===----------------------------------------------------------------------===*/

#include <cuda.h>
#include <stdlib.h>
#include <string.h>

static int envInt(const char *name, int fallback) {
  const char *v = getenv(name);
  return v ? atoi(v) : fallback;
}

CUresult cuInit(unsigned int flags) {
  (void)flags;
  return (CUresult)envInt("KILN_FAKE_CUDA_INIT", 0);
}

CUresult cuDriverGetVersion(int *version) {
  *version = 13000;
  return CUDA_SUCCESS;
}

#ifndef KILN_FAKE_CUDA_INCOMPLETE
CUresult cuDeviceGetCount(int *count) {
  *count = envInt("KILN_FAKE_CUDA_DEVICES", 0);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal < 0 || ordinal >= envInt("KILN_FAKE_CUDA_DEVICES", 0))
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice device) {
  (void)device;
  strncpy(name, "Kiln Fake GPU", (size_t)len);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                              CUdevice device) {
  (void)device;
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = 9;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = 0;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = 132;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice device) {
  (void)device;
  *bytes = (size_t)141 << 30;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case CUDA_ERROR_NO_DEVICE:
    *name = "CUDA_ERROR_NO_DEVICE";
    return CUDA_SUCCESS;
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    *name = "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
    return CUDA_SUCCESS;
  default:
    *name = 0;
    return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  switch (error) {
  case CUDA_ERROR_NO_DEVICE:
    *text = "no CUDA-capable device is detected";
    return CUDA_SUCCESS;
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    *text = "system has unsupported display driver / cuda driver combination";
    return CUDA_SUCCESS;
  default:
    *text = 0;
    return CUDA_ERROR_INVALID_VALUE;
  }
}
#endif
