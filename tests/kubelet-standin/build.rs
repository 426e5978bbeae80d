//! The kubelet's device-plugin and pod-resources APIs, compiled from the repository's `proto/`
//! (the `.proto` files as Kubernetes ships them) with a vendored protoc.

fn main() {
    let protoc = protoc_bin_vendored::protoc_bin_path().expect("a vendored protoc for this host");
    // SAFETY: build scripts are single-threaded; prost-build reads PROTOC from the environment.
    unsafe { std::env::set_var("PROTOC", protoc) };
    println!("cargo::rerun-if-changed=../../proto");
    tonic_prost_build::configure()
        .compile_protos(
            &[
                "../../proto/deviceplugin/v1beta1/api.proto",
                "../../proto/podresources/v1/api.proto",
            ],
            &["../../proto"],
        )
        .expect("the kubelet's .proto files compile");
}
