//! Leader election with a `coordination.k8s.io` Lease, as Kubernetes' own controllers do: the
//! holder renews it; another replica takes it only once it has not been renewed for its
//! duration. Every write carries the version it read, so two replicas never both win.

use crate::error::Result;
use crate::kube_api::call;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::api::{Api, PostParams};
use std::future::Future;

pub(crate) struct Elector {
    pub api: Api<Lease>,
    pub name: String,
    pub identity: String,
    pub duration_seconds: i32,
}

impl Elector {
    /// Take or renew the lease; whether this replica leads now.
    pub(crate) fn hold(&self, handle: &tokio::runtime::Handle) -> Result<bool> {
        let now = Timestamp::now();
        let what = format!("lease {}", self.name);
        let Some(mut lease) = call(handle, &format!("get {what}"), self.api.get_opt(&self.name))?
        else {
            let lease = Lease {
                metadata: ObjectMeta {
                    name: Some(self.name.clone()),
                    ..Default::default()
                },
                spec: Some(LeaseSpec {
                    holder_identity: Some(self.identity.clone()),
                    lease_duration_seconds: Some(self.duration_seconds),
                    acquire_time: Some(MicroTime(now)),
                    renew_time: Some(MicroTime(now)),
                    lease_transitions: Some(0),
                    ..Default::default()
                }),
            };
            return call(
                handle,
                &format!("create {what}"),
                won(self.api.create(&PostParams::default(), &lease)),
            );
        };
        let spec = lease.spec.get_or_insert_with(Default::default);
        let mine = spec.holder_identity.as_deref() == Some(self.identity.as_str());
        let expired = match (&spec.renew_time, spec.lease_duration_seconds) {
            (Some(MicroTime(renewed)), Some(seconds)) => {
                *renewed + SignedDuration::from_secs(i64::from(seconds)) < now
            }
            _ => true,
        };
        if !mine
            && !expired
            && spec
                .holder_identity
                .as_deref()
                .is_some_and(|h| !h.is_empty())
        {
            return Ok(false);
        }
        if !mine {
            spec.holder_identity = Some(self.identity.clone());
            spec.acquire_time = Some(MicroTime(now));
            spec.lease_transitions = Some(spec.lease_transitions.unwrap_or(0) + 1);
        }
        spec.renew_time = Some(MicroTime(now));
        spec.lease_duration_seconds = Some(self.duration_seconds);
        call(
            handle,
            &format!("update {what}"),
            won(self.api.replace(&self.name, &PostParams::default(), &lease)),
        )
    }
}

/// Whether the write won: one another replica got in first (409 Conflict: the Lease changed
/// since it was read, or was just made) is a lost election, not an error.
async fn won(write: impl Future<Output = kube::Result<Lease>>) -> kube::Result<bool> {
    match write.await {
        Ok(_) => Ok(true),
        Err(kube::Error::Api(s)) if s.code == 409 => Ok(false),
        Err(e) => Err(e),
    }
}
