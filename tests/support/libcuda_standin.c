/*
 * A stand-in libcuda.so.1 for gpushare's probe tests: the driver calls the probe makes, over host
 * memory, with the devices, memory limits and faults its environment describes. Built by the
 * tests with `cc -shared -fPIC` and loaded through LD_LIBRARY_PATH.
 *
 *   STANDIN_CUDA_DEVICES     UUID=MEM_MIB:SMS[,...]  the node's CUDA devices (GPU-… or MIG-…)
 *   CUDA_VISIBLE_DEVICES     as the driver reads it: UUIDs (or unique prefixes) or indexes
 *   STANDIN_CUDA_CAP         enforce (default) | ignore: whether allocations past the limit fail
 *   CUDA_MPS_PIPE_DIRECTORY  an MPS client: the directory must hold `control`, else error 805
 *   STANDIN_CUDA_MPS_MEM_MIB the MPS client's pinned-memory limit (context memory counts)
 *   STANDIN_CUDA_MPS_SMS     the SMs an MPS client is given (its thread share)
 *   STANDIN_CUDA_FAULT       crash:UUIDPREFIX (SIGSEGV in a kernel launch) or
 *                            hang:UUIDPREFIX (a host-to-device copy never returns)
 *
 * Kernels are recognised by name and their effect emulated: gpushare_noop does nothing,
 * gpushare_copy16 copies n 16-byte elements, gpushare_smid writes blockIdx % SMs per block.
 * Events read the monotonic clock; everything runs synchronously.
 *
 * Build with -DSTANDIN_OMIT_UUID_V2 for a driver that lacks cuDeviceGetUuid_v2 (CUDA < 11.4).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum {
    SUCCESS = 0,
    INVALID_VALUE = 1,
    OUT_OF_MEMORY = 2,
    NOT_INITIALIZED = 3,
    NO_DEVICE = 100,
    INVALID_DEVICE = 101,
    INVALID_CONTEXT = 201,
    INVALID_PTX = 218,
    INVALID_HANDLE = 400,
    NOT_FOUND = 500,
    MPS_CONNECTION_FAILED = 805,
};

#define MAX_DEVICES 64
#define MAX_ALLOCS 4096
#define MIB (1024ull * 1024ull)

struct device {
    char uuid[128];
    uint64_t mem_mib;
    int sms;
};

static struct device table[MAX_DEVICES];
static int table_len;
static int visible[MAX_DEVICES];
static int visible_len;
static int initialized;
static int current = -1; /* visible ordinal of the current context */
static uint64_t used;      /* bytes allocated on the current device */

static struct {
    void *ptr;
    size_t bytes;
} allocs[MAX_ALLOCS];

enum kernel { NOOP = 1, COPY16, SMID };
static enum kernel kernels[] = {NOOP, COPY16, SMID};
static const char *kernel_names[] = {"gpushare_noop", "gpushare_copy16", "gpushare_smid"};

static int ctx_token, stream_token;

static const char *env(const char *name) {
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static void parse_table(void) {
    const char *spec = env("STANDIN_CUDA_DEVICES");
    table_len = 0;
    if (!spec) return;
    char *copy = strdup(spec), *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item && table_len < MAX_DEVICES;
         item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) continue;
        *eq = 0;
        struct device *d = &table[table_len];
        strncpy(d->uuid, item, sizeof d->uuid - 1);
        d->mem_mib = strtoull(eq + 1, NULL, 10);
        char *colon = strchr(eq + 1, ':');
        d->sms = colon ? atoi(colon + 1) : 1;
        table_len++;
    }
    free(copy);
}

/* CUDA_VISIBLE_DEVICES: the list stops at the first entry that names no device. */
static void parse_visible(void) {
    const char *spec = getenv("CUDA_VISIBLE_DEVICES");
    visible_len = 0;
    if (!spec) {
        for (int i = 0; i < table_len; i++) visible[visible_len++] = i;
        return;
    }
    char *copy = strdup(spec), *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        int found = -1;
        char *end;
        long index = strtol(item, &end, 10);
        if (*item && !*end) {
            if (index >= 0 && index < table_len) found = (int)index;
        } else {
            for (int i = 0; i < table_len; i++)
                if (strncasecmp(table[i].uuid, item, strlen(item)) == 0) {
                    found = i;
                    break;
                }
        }
        if (found < 0) break;
        visible[visible_len++] = found;
    }
    free(copy);
}

static int mps_client(void) { return env("CUDA_MPS_PIPE_DIRECTORY") != NULL; }

static struct device *cur(void) { return current < 0 ? NULL : &table[visible[current]]; }

static uint64_t device_bytes(void) { return cur()->mem_mib * MIB; }

/* What the context itself takes: the driver's own allocations count against every limit. */
static uint64_t reserved(void) {
    uint64_t r = device_bytes() / 16;
    return r < 256 * MIB ? r : 256 * MIB;
}

static uint64_t limit(void) {
    const char *mps = env("STANDIN_CUDA_MPS_MEM_MIB");
    if (mps_client() && mps) return strtoull(mps, NULL, 10) * MIB;
    return device_bytes();
}

static int current_sms(void) {
    const char *mps = env("STANDIN_CUDA_MPS_SMS");
    if (mps_client() && mps) return atoi(mps);
    return cur()->sms;
}

static int fault(const char *kind) {
    const char *f = env("STANDIN_CUDA_FAULT");
    size_t n = strlen(kind);
    if (!f || !cur() || strncmp(f, kind, n) != 0 || f[n] != ':') return 0;
    return strncasecmp(cur()->uuid, f + n + 1, strlen(f + n + 1)) == 0;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int cuInit(unsigned flags) {
    (void)flags;
    parse_table();
    parse_visible();
    if (visible_len == 0) return NO_DEVICE;
    initialized = 1;
    return SUCCESS;
}

int cuDriverGetVersion(int *version) {
    *version = 12040;
    return SUCCESS;
}

int cuDeviceGetCount(int *count) {
    if (!initialized) return NOT_INITIALIZED;
    *count = visible_len;
    return SUCCESS;
}

int cuDeviceGet(int *device, int ordinal) {
    if (!initialized) return NOT_INITIALIZED;
    if (ordinal < 0 || ordinal >= visible_len) return INVALID_DEVICE;
    *device = ordinal;
    return SUCCESS;
}

int cuDeviceGetName(char *name, int len, int device) {
    if (device < 0 || device >= visible_len || len < 1) return INVALID_VALUE;
    strncpy(name, "Stand-in CUDA device", (size_t)len - 1);
    name[len - 1] = 0;
    return SUCCESS;
}

#ifndef STANDIN_OMIT_UUID_V2
int cuDeviceGetUuid_v2(unsigned char *uuid, int device) {
    if (device < 0 || device >= visible_len) return INVALID_DEVICE;
    const char *u = table[visible[device]].uuid;
    const char *body = strncmp(u, "GPU-", 4) == 0 || strncmp(u, "MIG-", 4) == 0 ? u + 4 : u;
    int n = 0;
    memset(uuid, 0, 16);
    for (const char *p = body; *p && n < 32; p++) {
        int v = *p >= '0' && *p <= '9' ? *p - '0'
              : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
              : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
        if (v < 0) continue;
        uuid[n / 2] |= (unsigned char)(n % 2 ? v : v << 4);
        n++;
    }
    return SUCCESS;
}
#endif

int cuDeviceGetAttribute(int *value, int attribute, int device) {
    if (device < 0 || device >= visible_len) return INVALID_DEVICE;
    int saved = current;
    current = device;
    switch (attribute) {
    case 16: *value = current_sms(); break;  /* MULTIPROCESSOR_COUNT */
    case 75: *value = 8; break;              /* COMPUTE_CAPABILITY_MAJOR */
    case 76: *value = 0; break;              /* COMPUTE_CAPABILITY_MINOR */
    default: current = saved; return INVALID_VALUE;
    }
    current = saved;
    return SUCCESS;
}

int cuDevicePrimaryCtxRetain(void **ctx, int device) {
    if (device < 0 || device >= visible_len) return INVALID_DEVICE;
    if (mps_client()) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/control", getenv("CUDA_MPS_PIPE_DIRECTORY"));
        if (stat(path, &st) != 0) return MPS_CONNECTION_FAILED;
    }
    current = device;
    *ctx = &ctx_token;
    return SUCCESS;
}

int cuDevicePrimaryCtxRelease_v2(int device) {
    (void)device;
    return SUCCESS;
}

int cuCtxSetCurrent(void *ctx) { return ctx == &ctx_token ? SUCCESS : INVALID_CONTEXT; }

int cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
    if (!cur()) return INVALID_CONTEXT;
    uint64_t taken = reserved() + used, lim = limit();
    *free_bytes = taken >= lim ? 0 : lim - taken;
    *total = device_bytes();
    return SUCCESS;
}

int cuMemAlloc_v2(unsigned long long *dptr, size_t bytes) {
    if (!cur()) return INVALID_CONTEXT;
    if (bytes == 0) return INVALID_VALUE;
    int enforce = !env("STANDIN_CUDA_CAP") || strcmp(env("STANDIN_CUDA_CAP"), "ignore") != 0;
    if (enforce && reserved() + used + bytes > limit()) return OUT_OF_MEMORY;
    int slot = -1;
    for (int i = 0; i < MAX_ALLOCS; i++)
        if (!allocs[i].ptr) {
            slot = i;
            break;
        }
    if (slot < 0) return OUT_OF_MEMORY;
    /* Untouched pages cost nothing: a 40 GiB "device" fits any test machine. */
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) return OUT_OF_MEMORY;
    allocs[slot].ptr = p;
    allocs[slot].bytes = bytes;
    used += bytes;
    *dptr = (unsigned long long)(uintptr_t)p;
    return SUCCESS;
}

int cuMemFree_v2(unsigned long long dptr) {
    for (int i = 0; i < MAX_ALLOCS; i++)
        if (allocs[i].ptr && (uintptr_t)allocs[i].ptr == dptr) {
            munmap(allocs[i].ptr, allocs[i].bytes);
            used -= allocs[i].bytes;
            allocs[i].ptr = NULL;
            return SUCCESS;
        }
    return INVALID_VALUE;
}

int cuMemHostAlloc(void **p, size_t bytes, unsigned flags) {
    (void)flags;
    *p = malloc(bytes ? bytes : 1);
    return *p ? SUCCESS : OUT_OF_MEMORY;
}

int cuMemFreeHost(void *p) {
    free(p);
    return SUCCESS;
}

int cuMemcpyHtoDAsync_v2(unsigned long long dst, const void *src, size_t bytes, void *stream) {
    (void)stream;
    if (fault("hang"))
        for (;;) pause();
    memcpy((void *)(uintptr_t)dst, src, bytes);
    return SUCCESS;
}

int cuMemcpyDtoHAsync_v2(void *dst, unsigned long long src, size_t bytes, void *stream) {
    (void)stream;
    memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return SUCCESS;
}

struct module {
    char *ptx;
};

int cuModuleLoadData(void **module, const void *image) {
    const char *ptx = image;
    /* The real JIT wants a PTX header: the version first, then the target. */
    const char *version = strstr(ptx, "\n.version "), *target = strstr(ptx, "\n.target ");
    if (!version || !target || target < version) return INVALID_PTX;
    struct module *m = malloc(sizeof *m);
    m->ptx = strdup(ptx);
    *module = m;
    return SUCCESS;
}

int cuModuleGetFunction(void **function, void *module, const char *name) {
    struct module *m = module;
    if (!m) return INVALID_HANDLE;
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        if (strcmp(name, kernel_names[i]) != 0) continue;
        char entry[128];
        snprintf(entry, sizeof entry, ".entry %s(", name);
        if (!strstr(m->ptx, entry)) return NOT_FOUND;
        *function = &kernels[i];
        return SUCCESS;
    }
    return NOT_FOUND;
}

int cuModuleUnload(void *module) {
    struct module *m = module;
    if (!m) return INVALID_HANDLE;
    free(m->ptx);
    free(m);
    return SUCCESS;
}

int cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
    (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)shared; (void)stream; (void)extra;
    if (!cur()) return INVALID_CONTEXT;
    if (fault("crash")) raise(SIGSEGV);
    switch (*(enum kernel *)function) {
    case NOOP:
        return SUCCESS;
    case COPY16: {
        uint64_t dst = *(uint64_t *)params[0], src = *(uint64_t *)params[1];
        uint64_t n = *(uint64_t *)params[2];
        memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n * 16);
        return SUCCESS;
    }
    case SMID: {
        uint32_t *out = (uint32_t *)(uintptr_t)*(uint64_t *)params[0];
        int sms = current_sms();
        for (unsigned b = 0; b < gx; b++) out[b] = b % (unsigned)(sms > 0 ? sms : 1);
        return SUCCESS;
    }
    }
    return INVALID_HANDLE;
}

int cuStreamCreate(void **stream, unsigned flags) {
    (void)flags;
    *stream = &stream_token;
    return SUCCESS;
}

int cuStreamSynchronize(void *stream) { return stream == &stream_token ? SUCCESS : INVALID_HANDLE; }

int cuStreamDestroy_v2(void *stream) { return stream == &stream_token ? SUCCESS : INVALID_HANDLE; }

int cuEventCreate(void **event, unsigned flags) {
    (void)flags;
    double *t = calloc(1, sizeof *t);
    *event = t;
    return t ? SUCCESS : OUT_OF_MEMORY;
}

int cuEventRecord(void *event, void *stream) {
    (void)stream;
    *(double *)event = now_ms();
    return SUCCESS;
}

int cuEventSynchronize(void *event) {
    (void)event;
    return SUCCESS;
}

int cuEventElapsedTime(float *ms, void *start, void *end) {
    *ms = (float)(*(double *)end - *(double *)start);
    return SUCCESS;
}

int cuEventDestroy_v2(void *event) {
    free(event);
    return SUCCESS;
}
