/*
 * libQnnHtp.so interposer for ExecuTorch's Qualcomm AOT path on x86 (conformance tooling only).
 *
 * Why: ExecuTorch's PyQnnManagerAdaptor (executorch 1.5.1 wheel) was compiled against the QNN SDK
 * 2.37 headers; the x86 libQnnHtp.so available here (onnxruntime-qnn wheel, QAIRT 2.51) reads
 * QnnHtpDevice_CustomConfig_t with the later layout, whose payload union gained a pointer member
 * (`void* htpExtension`, public header HTP/QnnHtpDeviceConfigTypes.h), which 8-byte aligns the
 * union: the payload moved from offset 4 to offset 8. ExecuTorch writes `socModel` at offset 4
 * (pytorch/executorch backends/qualcomm/runtime/backends/htp/host/HtpDeviceCustomConfig.cpp), the
 * library reads 0 at offset 8 and QnnDevice_create fails with "unknown custom config socModel 0"
 * (error 14001). ONNX Runtime's QNN EP is compiled against the new headers and does not hit it.
 *
 * What: exports QnnInterface_getProviders; forwards to the real library (path in the environment
 * variable QNNRULES_QNN_HTP_REAL) and returns a copy of each provider whose deviceCreate re-lays
 * the HTP device custom configs out (payload from offset 4 to 8) and, unless
 * QNNRULES_QNN_SHIM_PLATFORM_INFO=keep, drops the platform-info config (the SoC custom config
 * names the SoC; the x86 library loads its default platform info otherwise, as under ORT).
 * Everything else is the real library's. QNNRULES_QNN_SHIM_DEBUG=1 logs each adaptation to stderr.
 *
 * The QNN types are declared here from their public layout (QnnInterface.h, QnnDevice.h,
 * HTP/QnnHtpDevice.h); only what this file touches is named.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t Qnn_ErrorHandle_t;
typedef void* Qnn_Handle_t;

enum { QNN_DEVICE_CONFIG_OPTION_CUSTOM = 0, QNN_DEVICE_CONFIG_OPTION_PLATFORM_INFO = 1 };
enum { QNN_COMMON_ERROR_GENERAL = 1000, QNN_COMMON_ERROR_MEM_ALLOC = 1002 };

typedef struct {
  uint32_t option; /* QnnDevice_ConfigOption_t */
  void* payload;   /* union { QnnDevice_CustomConfig_t customConfig; QnnDevice_PlatformInfo_t* hardwareInfo; } */
} DeviceConfig;

/* QnnHtpDevice_CustomConfig_t as the 2.51 library reads it: option, then an 8-byte aligned union. */
typedef struct {
  uint32_t option;
  uint32_t pad;
  unsigned char payload[8];
} HtpDeviceCustomConfigNew;

typedef Qnn_ErrorHandle_t (*DeviceCreateFn)(Qnn_Handle_t logger, const DeviceConfig** config, Qnn_Handle_t* device);
typedef Qnn_ErrorHandle_t (*GetProvidersFn)(const void*** providers, uint32_t* num);

/* QnnInterface_t: backendId (u32), providerName (const char*), apiVersion (2 x Qnn_Version_t, 24
 * bytes), then the function table; deviceCreate is its 41st entry (QnnInterface.h order). */
#define FN_TABLE_OFFSET 40
#define DEVICE_CREATE_INDEX 40
#define GRAPH_CREATE_INDEX 15
/* Bytes of each provider copied: the fixed header and a table longer than any QNN 2.x has. */
#define PROVIDER_COPY_BYTES (FN_TABLE_OFFSET + 8 * 160)
#define MAX_PROVIDERS 8
#define MAX_CONFIGS 64

static void* real_lib;
static DeviceCreateFn real_device_create;
typedef Qnn_ErrorHandle_t (*GraphCreateFn)(Qnn_Handle_t context, const char* name, const DeviceConfig** config, Qnn_Handle_t* graph);
static GraphCreateFn real_graph_create;
static unsigned char provider_copy[MAX_PROVIDERS][PROVIDER_COPY_BYTES];
static const void* provider_list[MAX_PROVIDERS];
static int debug;

static void shim_log(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void shim_log(const char* fmt, ...) {
  if (!debug) return;
  va_list ap;
  va_start(ap, fmt);
  fputs("[qnn-htp-shim] ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static Qnn_ErrorHandle_t shim_device_create(Qnn_Handle_t logger, const DeviceConfig** config, Qnn_Handle_t* device) {
  static DeviceConfig adapted_cfg[MAX_CONFIGS];
  static HtpDeviceCustomConfigNew adapted_custom[MAX_CONFIGS];
  static const DeviceConfig* adapted_list[MAX_CONFIGS + 1];
  const char* pi = getenv("QNNRULES_QNN_SHIM_PLATFORM_INFO");
  int keep_platform_info = pi && strcmp(pi, "keep") == 0;
  size_t n = 0;
  for (size_t i = 0; config && config[i]; ++i) {
    if (n >= MAX_CONFIGS) return QNN_COMMON_ERROR_MEM_ALLOC;
    const DeviceConfig* c = config[i];
    if (c->option == QNN_DEVICE_CONFIG_OPTION_CUSTOM && c->payload) {
      const unsigned char* old = (const unsigned char*)c->payload; /* {u32 option; union at offset 4} */
      HtpDeviceCustomConfigNew* nw = &adapted_custom[n];
      memset(nw, 0, sizeof *nw);
      memcpy(&nw->option, old, 4);
      memcpy(nw->payload, old + 4, 8);
      adapted_cfg[n].option = c->option;
      adapted_cfg[n].payload = nw;
      shim_log("device custom config option %u: payload %u %u moved from offset 4 to 8", nw->option,
               *(const uint32_t*)(old + 4), *(const uint32_t*)(old + 8));
    } else if (c->option == QNN_DEVICE_CONFIG_OPTION_PLATFORM_INFO && !keep_platform_info) {
      shim_log("device platform-info config dropped");
      continue;
    } else {
      adapted_cfg[n] = *c;
    }
    adapted_list[n] = &adapted_cfg[n];
    ++n;
  }
  adapted_list[n] = NULL;
  return real_device_create(logger, config ? adapted_list : NULL, device);
}

/* Logs the graph configs (QNNRULES_QNN_SHIM_DEBUG) and forwards them unchanged: the HTP graph custom
 * config's union is 8-byte aligned in both header generations (it has held a pointer member since
 * before 2.37), so its layout did not move. */
static Qnn_ErrorHandle_t shim_graph_create(Qnn_Handle_t context, const char* name, const DeviceConfig** config, Qnn_Handle_t* graph) {
  for (size_t i = 0; debug && config && config[i]; ++i) {
    const uint32_t* w = (const uint32_t*)config[i]->payload;
    if (config[i]->option == 0 && w)
      shim_log("graph %s config %zu: custom option %u words %u %u %u %u", name, i, w[0], w[1], w[2], w[3], w[4]);
    else
      shim_log("graph %s config %zu: option %u", name, i, config[i]->option);
  }
  return real_graph_create(context, name, config, graph);
}

Qnn_ErrorHandle_t QnnInterface_getProviders(const void*** providers, uint32_t* num) {
  debug = getenv("QNNRULES_QNN_SHIM_DEBUG") != NULL;
  if (!real_lib) {
    const char* path = getenv("QNNRULES_QNN_HTP_REAL");
    if (!path) {
      fprintf(stderr, "[qnn-htp-shim] QNNRULES_QNN_HTP_REAL (the real libQnnHtp.so) is not set\n");
      return QNN_COMMON_ERROR_GENERAL;
    }
    real_lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!real_lib) {
      fprintf(stderr, "[qnn-htp-shim] cannot load %s: %s\n", path, dlerror());
      return QNN_COMMON_ERROR_GENERAL;
    }
  }
  GetProvidersFn real_get = (GetProvidersFn)dlsym(real_lib, "QnnInterface_getProviders");
  if (!real_get) return QNN_COMMON_ERROR_GENERAL;
  const void** real_providers = NULL;
  uint32_t count = 0;
  Qnn_ErrorHandle_t rc = real_get(&real_providers, &count);
  if (rc != 0 || !real_providers) return rc;
  if (count > MAX_PROVIDERS) count = MAX_PROVIDERS;
  for (uint32_t i = 0; i < count; ++i) {
    memcpy(provider_copy[i], real_providers[i], PROVIDER_COPY_BYTES);
    void** table = (void**)(provider_copy[i] + FN_TABLE_OFFSET);
    if (!real_device_create) real_device_create = (DeviceCreateFn)table[DEVICE_CREATE_INDEX];
    table[DEVICE_CREATE_INDEX] = (void*)shim_device_create;
    if (!real_graph_create) real_graph_create = (GraphCreateFn)table[GRAPH_CREATE_INDEX];
    table[GRAPH_CREATE_INDEX] = (void*)shim_graph_create;
    provider_list[i] = provider_copy[i];
  }
  shim_log("forwarding %u provider(s) of %s", count, getenv("QNNRULES_QNN_HTP_REAL"));
  *providers = provider_list;
  *num = count;
  return rc;
}
