//! The kubelet's gRPC APIs, compiled from `proto/` (the `.proto` files as Kubernetes ships them)
//! with a vendored protoc, so the build stays offline: the pod-resources client, and what
//! gpushare's DRA kubelet plugin serves (plugin registration, DRA v1, the health stream).

fn main() {
    let protoc = protoc_bin_vendored::protoc_bin_path().expect("a vendored protoc for this host");
    // SAFETY: build scripts are single-threaded; prost-build reads PROTOC from the environment.
    unsafe { std::env::set_var("PROTOC", protoc) };
    println!("cargo::rerun-if-changed=proto");
    tonic_prost_build::configure()
        .build_server(false)
        .compile_protos(&["proto/podresources/v1/api.proto"], &["proto"])
        .expect("the kubelet's pod-resources .proto compiles");
    tonic_prost_build::configure()
        .build_client(false)
        .compile_protos(
            &[
                "proto/pluginregistration/v1/api.proto",
                "proto/dra/v1/api.proto",
                "proto/dra-health/v1alpha1/api.proto",
            ],
            &["proto"],
        )
        .expect("the kubelet's DRA plugin .protos compile");
}
