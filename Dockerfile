# The gpushare image, for the node agent DaemonSet (`gpushare manifests --target agent --image
# gpushare=REF`): the release binary on a minimal base.
#
#   scripts/release.sh                      # target/x86_64-unknown-linux-gnu/release/gpushare
#   docker build -t REGISTRY/gpushare:TAG .
#
# The binary needs only glibc (2.17 or newer) and libgcc_s; the NVIDIA libraries and tools come
# from the driver at run time (the NVIDIA container runtime mounts them, as
# NVIDIA_DRIVER_CAPABILITIES asks). distroless/cc has glibc and libgcc_s, and no shell or package
# manager. It runs as root: changing MIG needs it (the DaemonSet says why it is privileged).
FROM gcr.io/distroless/cc-debian12

COPY target/x86_64-unknown-linux-gnu/release/gpushare /usr/bin/gpushare

ENV NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility

ENTRYPOINT ["/usr/bin/gpushare"]
CMD ["agent"]
