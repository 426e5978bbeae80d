//! The kubelet's APIs a DRA plugin serves, the server side (`proto/`, see `build.rs`).

pub(crate) mod registration {
    //! `k8s.io/kubelet/pkg/apis/pluginregistration/v1`.
    #![allow(unreachable_pub, clippy::all)]
    tonic::include_proto!("pluginregistration");
}
pub(crate) mod dra {
    //! `k8s.io/kubelet/pkg/apis/dra/v1`.
    #![allow(unreachable_pub, clippy::all)]
    tonic::include_proto!("k8s.io.kubelet.pkg.apis.dra.v1");
}
pub(crate) mod health {
    //! `k8s.io/kubelet/pkg/apis/dra-health/v1alpha1`.
    #![allow(unreachable_pub, clippy::all)]
    tonic::include_proto!("v1alpha1");
}
