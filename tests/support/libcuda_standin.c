/*
 * A stand-in libcuda.so.1 for gpushare's probe tests: the driver calls the probe makes, over host
 * memory, with the devices, memory limits, timing and faults its environment describes. Built by
 * the tests with `cc -shared -fPIC` and loaded through LD_LIBRARY_PATH.
 *
 * Devices
 *   STANDIN_CUDA_DEVICES     UUID=MEM_MIB:SMS[,...]  the node's CUDA devices (GPU-… or MIG-…)
 *   CUDA_VISIBLE_DEVICES     as the driver reads it: UUIDs (or unique prefixes) or indexes
 *   STANDIN_CUDA_CAPS        denied: MIG devices cannot be opened (no access to their
 *                            /dev/nvidia-caps files): they are not enumerated, and a process that
 *                            sees none of its devices gets CUDA_ERROR_NO_DEVICE from cuInit
 *   STANDIN_CUDA_CAP         enforce (default) | ignore: whether allocations past the limit fail
 *   STANDIN_CUDA_CONTEXT_MIB what a context takes of the device's memory (default: 1/16 of it,
 *                            at most 256 MiB); it counts against every limit
 *
 * MPS, as the driver does it: a process is an MPS client when its pipe directory
 * (CUDA_MPS_PIPE_DIRECTORY, else STANDIN_CUDA_MPS_DEFAULT_PIPE standing for the driver's built-in
 * /tmp/nvidia-mps) holds `control`; otherwise it runs as a plain client on the whole device ("CUDA
 * continues to run as it normally would without MPS").
 *   STANDIN_CUDA_MPS_MEM_MIB the daemon's pinned-memory limit per client (context memory counts);
 *                            without it, the stand-in control daemon's default for the ordinal
 *                            (its stand-in-state.json in the pipe directory), as its server applies it
 *   STANDIN_CUDA_MPS_SMS     the SMs the daemon's thread share gives a client; without it, the
 *                            stand-in control daemon's default thread percentage
 *   CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, CUDA_MPS_PINNED_DEVICE_MEM_LIMIT (ORDINAL=SIZE[M|G],...)
 *                            a client's own, lower limits, read from its environment
 *   STANDIN_CUDA_MPS_MEMINFO device (default) | limit: whether cuMemGetInfo shows the client's
 *                            memory limit (the MPS manual does not say; the default is the harder
 *                            case: it shows the device)
 *   STANDIN_CUDA_SM_CAP      enforce (default) | ignore: whether kernels stay on the SMs given
 *   MPS hands out SMs in pairs (TPCs): a client given an odd count runs on one more at once.
 *
 * Timing. Every copy and kernel is run on a per-device engine, one at a time; events read the
 * time the stream reaches them, and synchronising waits for it. Without STANDIN_CUDA_GBPS an
 * operation lasts as long as its host copy took; with it:
 *   STANDIN_CUDA_GBPS        copies move this many GB/s (a D2D copy kernel: read + write bytes)
 *   STANDIN_CUDA_STATE       a directory shared by every process of the test: the devices'
 *                            engines (so concurrent clients share the bandwidth) and context counts
 *   STANDIN_CUDA_API_US      each launch or copy costs the host this many microseconds to queue
 *   STANDIN_CUDA_LATE_MS     the k-th context opened on a device (k from 0) queues its first copy
 *                            k times this late: clients that drift apart
 *
 * Faults and traces
 *   STANDIN_CUDA_FAULT       crash:UUIDPREFIX (SIGSEGV in a kernel launch),
 *                            hang:UUIDPREFIX (a host-to-device copy never returns), or
 *                            code:N:UUIDPREFIX (cuMemAlloc_v2 returns CUresult N, e.g. a code newer
 *                            than the probe's bindings)
 *   STANDIN_CUDA_LOG         a file: each process appends its CUDA_* environment at cuInit and its
 *                            CPU affinity at each cuMemHostAlloc
 *
 * Kernels are recognised by name and their effect emulated: gpushare_noop does nothing,
 * gpushare_copy16 copies n 16-byte elements, gpushare_smid writes {SM, start ns, end ns} per block
 * (blocks run in waves of 8 per SM the context may use at once; each wave on the next SMs, as MPS
 * may place them), gpushare_wait holds the stream until the host raises its flag in mapped host
 * memory (or its timeout passes).
 *
 * Build with -DSTANDIN_OMIT_UUID_V2 for a driver that lacks cuDeviceGetUuid_v2 (CUDA < 11.4).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

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
};

#define MAX_DEVICES 64
#define MAX_ALLOCS 4096
#define MAX_HOST 256
#define MAX_PENDING 65536
#define MIB (1024ull * 1024ull)
#define HOSTALLOC_DEVICEMAP 2u
#define SMID_BLOCKS_PER_SM_WAVE 8u

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
static int context_index;  /* how many contexts this device had before ours */
static int copies_queued;

static struct {
    void *ptr;
    size_t bytes;
} allocs[MAX_ALLOCS];

static struct {
    void *ptr;
    size_t bytes;
    unsigned flags;
} host_allocs[MAX_HOST];

enum kernel { NOOP = 1, COPY16, SMID, WAIT };
static enum kernel kernels[] = {NOOP, COPY16, SMID, WAIT};
static const char *kernel_names[] = {"gpushare_noop", "gpushare_copy16", "gpushare_smid",
                                     "gpushare_wait"};

static int ctx_token, stream_token;

static const char *env(const char *name) {
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static int env_is(const char *name, const char *value) {
    const char *v = env(name);
    return v && strcmp(v, value) == 0;
}

/* ---- the node's devices ---- */

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

static int openable(int i) {
    return !(env_is("STANDIN_CUDA_CAPS", "denied") && strncmp(table[i].uuid, "MIG-", 4) == 0);
}

/* CUDA_VISIBLE_DEVICES: the list stops at the first entry that names no device it can open. */
static void parse_visible(void) {
    const char *spec = getenv("CUDA_VISIBLE_DEVICES");
    visible_len = 0;
    if (!spec) {
        for (int i = 0; i < table_len; i++)
            if (openable(i)) visible[visible_len++] = i;
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
        if (found < 0 || !openable(found)) break;
        visible[visible_len++] = found;
    }
    free(copy);
}

static struct device *cur(void) { return current < 0 ? NULL : &table[visible[current]]; }

static uint64_t device_bytes(void) { return cur()->mem_mib * MIB; }

/* ---- MPS ---- */

static int mps_client(void) {
    const char *pipe = env("CUDA_MPS_PIPE_DIRECTORY");
    if (!pipe) pipe = env("STANDIN_CUDA_MPS_DEFAULT_PIPE");
    if (!pipe) pipe = "/tmp/nvidia-mps";
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/control", pipe);
    return stat(path, &st) == 0;
}

static uint64_t size_bytes(const char *text) {
    char *end;
    uint64_t n = strtoull(text, &end, 10);
    if (*end == 'G' || *end == 'g') return n * 1024 * MIB;
    if (*end == 'K' || *end == 'k') return n * 1024;
    return n * MIB;
}

/* The client's own CUDA_MPS_PINNED_DEVICE_MEM_LIMIT for the current ordinal, or 0. */
static uint64_t client_mem_limit(void) {
    const char *spec = env("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT");
    if (!spec) return 0;
    uint64_t found = 0;
    char *copy = strdup(spec), *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (eq && atoi(item) == current) found = size_bytes(eq + 1);
    }
    free(copy);
    return found;
}

/* What the context itself takes: the driver's own allocations count against every limit. */
static uint64_t reserved(void) {
    const char *mib = env("STANDIN_CUDA_CONTEXT_MIB");
    if (mib) return strtoull(mib, NULL, 10) * MIB;
    uint64_t r = device_bytes() / 16;
    return r < 256 * MIB ? r : 256 * MIB;
}

/* A number from the stand-in control daemon's state in the pipe directory (its defaults, as the
 * server it starts applies them): after `"key": ` (mem_limits are keyed by ordinal), or -1. */
static double daemon_state(const char *key) {
    const char *pipe = env("CUDA_MPS_PIPE_DIRECTORY");
    if (!pipe) return -1;
    char path[4096], text[65536];
    snprintf(path, sizeof path, "%s/stand-in-state.json", pipe);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return -1;
    text[n] = 0;
    char *at = strstr(text, key);
    if (!at) return -1;
    at = strchr(at + strlen(key), ':');
    return at ? atof(at + 1) : -1;
}

static uint64_t limit(void) {
    uint64_t lim = device_bytes();
    if (!mps_client()) return lim;
    const char *daemon = env("STANDIN_CUDA_MPS_MEM_MIB");
    char key[32];
    snprintf(key, sizeof key, "\"mem_limits\": {\"%d\"", current);
    double held = daemon ? -1 : daemon_state(key);
    if (held > 0 && (uint64_t)held * MIB < lim) lim = (uint64_t)held * MIB;
    if (daemon && strtoull(daemon, NULL, 10) * MIB < lim) lim = strtoull(daemon, NULL, 10) * MIB;
    uint64_t own = client_mem_limit();
    if (own && own < lim) lim = own;
    return lim;
}

/* The SMs the context is given (MULTIPROCESSOR_COUNT). */
static int current_sms(void) {
    int sms = cur()->sms;
    if (!mps_client()) return sms;
    const char *daemon = env("STANDIN_CUDA_MPS_SMS");
    if (daemon && atoi(daemon) < sms) sms = atoi(daemon);
    double held = daemon ? -1 : daemon_state("\"thread_percentage\"");
    if (held > 0 && held < 100) {
        int own = (int)((cur()->sms * held + 99.999) / 100);
        if (own < sms) sms = own;
    }
    const char *pct = env("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
    if (pct) {
        int own = (int)((cur()->sms * atof(pct) + 99.999) / 100);
        if (own < sms) sms = own;
    }
    return sms > 0 ? sms : 1;
}

/* The SMs its kernels really run on at once. */
static int sms_at_once(void) {
    int physical = cur()->sms, sms = current_sms();
    if (env_is("STANDIN_CUDA_SM_CAP", "ignore")) return physical;
    if (mps_client() && sms < physical && sms % 2) sms++;
    return sms < physical ? sms : physical;
}

/* ---- faults and traces ---- */

static const char *fault_arg(const char *kind) {
    const char *f = env("STANDIN_CUDA_FAULT");
    size_t n = strlen(kind);
    if (!f || !cur() || strncmp(f, kind, n) != 0 || f[n] != ':') return NULL;
    return f + n + 1;
}

static int fault(const char *kind) {
    const char *prefix = fault_arg(kind);
    return prefix && strncasecmp(cur()->uuid, prefix, strlen(prefix)) == 0;
}

static void trace(const char *fmt, const char *text) {
    const char *path = env("STANDIN_CUDA_LOG");
    if (!path) return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    char line[8192];
    int n = snprintf(line, sizeof line, fmt, (int)getpid(), text);
    if (n > 0) {
        if ((size_t)n >= sizeof line) n = sizeof line - 1;
        ssize_t written = write(fd, line, (size_t)n);
        (void)written;
    }
    close(fd);
}

static void trace_cuda_env(void) {
    char text[4096] = "";
    for (char **e = environ; *e; e++)
        if (strncmp(*e, "CUDA_", 5) == 0 && strlen(text) + strlen(*e) + 2 < sizeof text) {
            strcat(text, " ");
            strcat(text, *e);
        }
    trace("pid=%d cuInit env:%s\n", text);
}

static void trace_affinity(void) {
    cpu_set_t set;
    char text[4096] = "";
    if (sched_getaffinity(0, sizeof set, &set) != 0) return;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &set)) continue;
        int last = cpu;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) last++;
        char part[32];
        if (last == cpu) snprintf(part, sizeof part, "%s%d", *text ? "," : "", cpu);
        else snprintf(part, sizeof part, "%s%d-%d", *text ? "," : "", cpu, last);
        if (strlen(text) + strlen(part) < sizeof text) strcat(text, part);
        cpu = last;
    }
    trace("pid=%d cuMemHostAlloc cpus=%s\n", text);
}

/* ---- time: one engine per device, a stream, events ---- */

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void sleep_until(double ms) {
    double left = ms - now_ms();
    if (left <= 0) return;
    struct timespec t = {(time_t)(left / 1e3), (long)((left - (time_t)(left / 1e3) * 1e3) * 1e6)};
    nanosleep(&t, NULL);
}

static void sleep_ms(double ms) { sleep_until(now_ms() + ms); }

static double modeled_gbps(void) {
    const char *g = env("STANDIN_CUDA_GBPS");
    return g ? atof(g) : 0;
}

/* A file of the shared state directory for the current device, locked; -1 without one. */
static int state_open(const char *what) {
    const char *dir = env("STANDIN_CUDA_STATE");
    if (!dir || !cur()) return -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s", dir, cur()->uuid, what);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) flock(fd, LOCK_EX);
    return fd;
}

static void state_close(int fd) {
    flock(fd, LOCK_UN);
    close(fd);
}

/* Run an operation of `duration` ms on the device's engine no earlier than `at`: its start. */
static double engine_run(double at, double duration) {
    static double local_busy;
    int fd = state_open("engine");
    double busy = local_busy;
    if (fd >= 0 && pread(fd, &busy, sizeof busy, 0) != sizeof busy) busy = 0;
    double start = at > busy ? at : busy;
    busy = start + duration;
    if (fd >= 0) {
        ssize_t written = pwrite(fd, &busy, sizeof busy, 0);
        (void)written;
        state_close(fd);
    } else {
        local_busy = busy;
    }
    return start;
}

static int next_context_index(void) {
    int fd = state_open("contexts"), n = 0;
    if (fd < 0) return 0;
    if (pread(fd, &n, sizeof n, 0) != sizeof n) n = 0;
    int next = n + 1;
    ssize_t written = pwrite(fd, &next, sizeof next, 0);
    (void)written;
    state_close(fd);
    return n;
}

static double stream_ready; /* when the stream finishes what it was given */

/* While a gpushare_wait kernel holds the stream, what comes after it waits here. */
static struct {
    int on;
    volatile uint32_t *flag;
    double since, timeout;
} block;
static struct {
    double duration;
    double *event;
} pending[MAX_PENDING];
static int pending_len;

static void schedule(double at, double duration) {
    double start = engine_run(at > stream_ready ? at : stream_ready, duration);
    stream_ready = start + duration;
}

/* Release the stream once the host raised the flag (or the kernel's timeout passed). */
static void poll_block(int waiting) {
    if (!block.on) return;
    double release;
    if (*block.flag) {
        release = now_ms();
    } else if (now_ms() >= block.since + block.timeout || waiting) {
        /* A synchronising host waits for the kernel to give up. */
        sleep_until(block.since + block.timeout);
        release = block.since + block.timeout;
    } else {
        return;
    }
    block.on = 0;
    for (int i = 0; i < pending_len; i++) {
        if (pending[i].event) *pending[i].event = release > stream_ready ? release : stream_ready;
        else schedule(release, pending[i].duration);
    }
    pending_len = 0;
}

/* Queue an operation that lasts `duration` ms, given at host time `at`. */
static int enqueue(double at, double duration) {
    poll_block(0);
    if (!block.on) {
        schedule(at, duration);
        return SUCCESS;
    }
    if (pending_len == MAX_PENDING) return OUT_OF_MEMORY;
    pending[pending_len].duration = duration;
    pending[pending_len].event = NULL;
    pending_len++;
    return SUCCESS;
}

/* What queueing costs the host, and a late client's delay before its first copy. */
static void queue_cost(int is_copy) {
    const char *us = env("STANDIN_CUDA_API_US");
    if (us) sleep_ms(atof(us) / 1e3);
    const char *late = env("STANDIN_CUDA_LATE_MS");
    if (is_copy && late && copies_queued++ == 0) sleep_ms(context_index * atof(late));
}

/* A copy of `bytes` (counted `counted` bytes for its duration): run it now on the host, time it
 * as the model says. */
static int copy_op(void *dst, const void *src, size_t bytes, double counted) {
    queue_cost(1);
    double t0 = now_ms();
    memcpy(dst, src, bytes);
    double gbps = modeled_gbps();
    return enqueue(t0, gbps > 0 ? counted / (gbps * 1e6) : now_ms() - t0);
}

/* ---- the driver API ---- */

int cuInit(unsigned flags) {
    (void)flags;
    trace_cuda_env();
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
    current = device;
    context_index = next_context_index();
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
    uint64_t taken = reserved() + used;
    uint64_t shown = env_is("STANDIN_CUDA_MPS_MEMINFO", "limit") ? limit() : device_bytes();
    *free_bytes = taken >= shown ? 0 : shown - taken;
    *total = device_bytes();
    return SUCCESS;
}

int cuMemAlloc_v2(unsigned long long *dptr, size_t bytes) {
    if (!cur()) return INVALID_CONTEXT;
    if (bytes == 0) return INVALID_VALUE;
    const char *code = fault_arg("code");
    if (code) {
        const char *prefix = strchr(code, ':');
        if (prefix && strncasecmp(cur()->uuid, prefix + 1, strlen(prefix + 1)) == 0)
            return atoi(code);
    }
    int enforce = !env_is("STANDIN_CUDA_CAP", "ignore");
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
    trace_affinity();
    int slot = -1;
    for (int i = 0; i < MAX_HOST; i++)
        if (!host_allocs[i].ptr) {
            slot = i;
            break;
        }
    if (slot < 0) return OUT_OF_MEMORY;
    *p = calloc(1, bytes ? bytes : 1);
    if (!*p) return OUT_OF_MEMORY;
    host_allocs[slot].ptr = *p;
    host_allocs[slot].bytes = bytes;
    host_allocs[slot].flags = flags;
    return SUCCESS;
}

int cuMemHostGetDevicePointer_v2(unsigned long long *dptr, void *p, unsigned flags) {
    if (flags != 0) return INVALID_VALUE;
    for (int i = 0; i < MAX_HOST; i++)
        if (host_allocs[i].ptr == p) {
            if (!(host_allocs[i].flags & HOSTALLOC_DEVICEMAP)) return INVALID_VALUE;
            *dptr = (unsigned long long)(uintptr_t)p; /* unified addressing */
            return SUCCESS;
        }
    return INVALID_VALUE;
}

int cuMemFreeHost(void *p) {
    for (int i = 0; i < MAX_HOST; i++)
        if (host_allocs[i].ptr == p) host_allocs[i].ptr = NULL;
    free(p);
    return SUCCESS;
}

static int mapped_host_word(uint64_t ptr) {
    for (int i = 0; i < MAX_HOST; i++)
        if (host_allocs[i].ptr && (host_allocs[i].flags & HOSTALLOC_DEVICEMAP) &&
            (uintptr_t)host_allocs[i].ptr <= ptr &&
            ptr + 4 <= (uintptr_t)host_allocs[i].ptr + host_allocs[i].bytes)
            return 1;
    return 0;
}

int cuMemcpyHtoDAsync_v2(unsigned long long dst, const void *src, size_t bytes, void *stream) {
    (void)stream;
    if (fault("hang"))
        for (;;) pause();
    return copy_op((void *)(uintptr_t)dst, src, bytes, (double)bytes);
}

int cuMemcpyDtoHAsync_v2(void *dst, unsigned long long src, size_t bytes, void *stream) {
    (void)stream;
    return copy_op(dst, (const void *)(uintptr_t)src, bytes, (double)bytes);
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

/* gpushare_smid: blocks in waves over the SMs the context gets at once, `spin` ns each. */
static int smid_kernel(unsigned grid, uint64_t *out, uint64_t spin_ns) {
    int physical = cur()->sms > 0 ? cur()->sms : 1, at_once = sms_at_once();
    unsigned per_wave = (unsigned)at_once * SMID_BLOCKS_PER_SM_WAVE;
    unsigned waves = (grid + per_wave - 1) / per_wave;
    double duration = waves * spin_ns / 1e6;
    double at = now_ms();
    poll_block(0);
    if (block.on) return INVALID_VALUE; /* the probe never queues it behind a blocker */
    schedule(at, duration);
    double start_ms = stream_ready - duration;
    for (unsigned b = 0; b < grid; b++) {
        unsigned wave = b / per_wave, slot = b % per_wave;
        uint64_t start = (uint64_t)(start_ms * 1e6) + wave * spin_ns;
        out[3 * b] = (wave * (unsigned)at_once + slot % (unsigned)at_once) % (unsigned)physical;
        out[3 * b + 1] = start;
        out[3 * b + 2] = start + spin_ns;
    }
    return SUCCESS;
}

int cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
    (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)shared; (void)stream; (void)extra;
    if (!cur()) return INVALID_CONTEXT;
    if (fault("crash")) raise(SIGSEGV);
    queue_cost(0);
    switch (*(enum kernel *)function) {
    case NOOP:
        return enqueue(now_ms(), modeled_gbps() > 0 ? 0.002 : 0);
    case COPY16: {
        uint64_t dst = *(uint64_t *)params[0], src = *(uint64_t *)params[1];
        uint64_t n = *(uint64_t *)params[2];
        double t0 = now_ms();
        memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n * 16);
        double gbps = modeled_gbps();
        return enqueue(t0, gbps > 0 ? 2.0 * n * 16 / (gbps * 1e6) : now_ms() - t0);
    }
    case SMID:
        return smid_kernel(gx, (uint64_t *)(uintptr_t)*(uint64_t *)params[0],
                           *(uint64_t *)params[1]);
    case WAIT: {
        uint64_t flag = *(uint64_t *)params[0], timeout_ns = *(uint64_t *)params[1];
        if (!mapped_host_word(flag)) return INVALID_VALUE;
        poll_block(0);
        if (block.on) return INVALID_VALUE; /* one blocker at a time */
        double now = now_ms();
        block.on = 1;
        block.flag = (volatile uint32_t *)(uintptr_t)flag;
        block.since = now > stream_ready ? now : stream_ready;
        block.timeout = timeout_ns / 1e6;
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

int cuStreamSynchronize(void *stream) {
    if (stream != &stream_token) return INVALID_HANDLE;
    poll_block(1);
    sleep_until(stream_ready);
    return SUCCESS;
}

int cuStreamDestroy_v2(void *stream) { return stream == &stream_token ? SUCCESS : INVALID_HANDLE; }

int cuEventCreate(void **event, unsigned flags) {
    (void)flags;
    double *t = calloc(1, sizeof *t);
    *event = t;
    return t ? SUCCESS : OUT_OF_MEMORY;
}

int cuEventRecord(void *event, void *stream) {
    (void)stream;
    double *t = event;
    poll_block(0);
    if (!block.on) {
        double now = now_ms();
        *t = now > stream_ready ? now : stream_ready;
        return SUCCESS;
    }
    if (pending_len == MAX_PENDING) return OUT_OF_MEMORY;
    pending[pending_len].duration = 0;
    pending[pending_len].event = t;
    pending_len++;
    return SUCCESS;
}

int cuEventSynchronize(void *event) {
    poll_block(1);
    sleep_until(*(double *)event);
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
