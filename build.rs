//! The client of the kubelet's pod-resources API, compiled from `proto/` (the `.proto` file as
//! Kubernetes ships it) with a vendored protoc, so the build stays offline.

fn main() {
    let protoc = protoc_bin_vendored::protoc_bin_path().expect("a vendored protoc for this host");
    // SAFETY: build scripts are single-threaded; prost-build reads PROTOC from the environment.
    unsafe { std::env::set_var("PROTOC", protoc) };
    println!("cargo::rerun-if-changed=proto/podresources");
    tonic_prost_build::configure()
        .build_server(false)
        .compile_protos(&["proto/podresources/v1/api.proto"], &["proto"])
        .expect("the kubelet's pod-resources .proto compiles");
}
