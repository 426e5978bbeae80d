/*
 * cuda-alloc BYTES...: a CUDA client for gpushare's real-node tests. In the primary context of device 0 it
 * allocates each BYTES in turn (each held while the next is tried) and prints, per size,
 * `alloc BYTES ok` or `alloc BYTES error CODE` (2: out of memory), then `sms N` (the context's
 * MULTIPROCESSOR_COUNT). libcuda.so.1 is loaded at run time, so the same binary runs against
 * the test stand-in or a driver. Built by the tests with `cc -o cuda-alloc cuda_alloc.c -ldl`.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*init_fn)(unsigned);
typedef int (*device_get_fn)(int *, int);
typedef int (*retain_fn)(void **, int);
typedef int (*set_current_fn)(void *);
typedef int (*alloc_fn)(unsigned long long *, size_t);
typedef int (*attribute_fn)(int *, int, int);

int main(int argc, char **argv) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
        printf("error no libcuda: %s\n", dlerror());
        return 1;
    }
    init_fn init = (init_fn)dlsym(lib, "cuInit");
    device_get_fn device_get = (device_get_fn)dlsym(lib, "cuDeviceGet");
    retain_fn retain = (retain_fn)dlsym(lib, "cuDevicePrimaryCtxRetain");
    set_current_fn set_current = (set_current_fn)dlsym(lib, "cuCtxSetCurrent");
    alloc_fn alloc = (alloc_fn)dlsym(lib, "cuMemAlloc_v2");
    attribute_fn attribute = (attribute_fn)dlsym(lib, "cuDeviceGetAttribute");
    if (!init || !device_get || !retain || !set_current || !alloc || !attribute) {
        printf("error libcuda lacks a function\n");
        return 1;
    }
    int device = 0, rc;
    void *ctx = NULL;
    if ((rc = init(0)) || (rc = device_get(&device, 0)) || (rc = retain(&ctx, device)) ||
        (rc = set_current(ctx))) {
        printf("error context %d\n", rc);
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        unsigned long long ptr = 0;
        size_t bytes = strtoull(argv[i], NULL, 10);
        rc = alloc(&ptr, bytes);
        if (rc)
            printf("alloc %zu error %d\n", bytes, rc);
        else
            printf("alloc %zu ok\n", bytes);
    }
    int sms = 0;
    /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */
    attribute(&sms, 16, device);
    printf("sms %d\n", sms);
    return 0;
}
