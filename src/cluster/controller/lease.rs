//! Leader election with a `coordination.k8s.io` Lease, as client-go's elector does it: the
//! holder renews it; another replica takes it once the Lease has not changed for a lease
//! duration by its own clock (so no replica trusts another's clock). Every write carries the
//! version it read, so two replicas never both win.
//!
//! The Lease is input from anyone who may write Leases in the namespace, so it is read as raw
//! JSON: a `renewTime` that does not parse (the year 9999 is beyond what the API types hold), or
//! lies beyond [`MAX_SKEW`] in the future, is expired at once, not an error every turn. A
//! replica leads only until its last renewal's deadline: a turn that outlives it writes nothing.
//!
//! The maintained crates (kube-lease-manager, kube-leader-election) read the typed Lease and
//! trust its times, so such a Lease wedges them as it wedged this elector; this one stays.

use crate::cluster::api_client::call;
use crate::support::error::Result;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::api::{Api, ApiResource, DynamicObject, PostParams};
use serde_json::Value;
use std::future::Future;
use std::time::{Duration, Instant};

/// How far in the future a renewal may lie (clocks differ) before it is taken as a lie.
pub(crate) const MAX_SKEW: Duration = Duration::from_secs(60);

pub(crate) struct Elector {
    api: Api<Lease>,
    raw: Api<DynamicObject>,
    name: String,
    identity: String,
    duration: Duration,
    /// The Lease as last read (its version and holder), and when this replica first saw it so.
    observed: Option<(Observed, Instant)>,
    /// This replica leads until then (the last renewal plus two thirds of the duration, as
    /// client-go's renew deadline), if it does.
    leads_until: Option<Instant>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Observed {
    version: Option<String>,
    holder: String,
}

/// What a read Lease says, each field as far as it can be read.
#[derive(Debug, Default)]
struct Record {
    holder: String,
    /// None: missing, not a time the API types hold, or beyond the skew bound.
    renewed: Option<Timestamp>,
    acquired: Option<Timestamp>,
    transitions: i32,
}

impl Elector {
    pub(crate) fn new(
        client: kube::Client,
        namespace: &str,
        name: &str,
        identity: &str,
        duration: Duration,
    ) -> Elector {
        let resource = ApiResource::erase::<Lease>(&());
        Elector {
            api: Api::namespaced(client.clone(), namespace),
            raw: Api::namespaced_with(client, namespace, &resource),
            name: name.into(),
            identity: identity.into(),
            duration,
            observed: None,
            leads_until: None,
        }
    }

    /// Until when this replica leads, if it does.
    pub(crate) fn leads_until(&self) -> Option<Instant> {
        self.leads_until.filter(|t| Instant::now() < *t)
    }

    /// Take or renew the lease; whether this replica leads now. An error (the API did not
    /// answer) leaves the lead to run out at its deadline.
    pub(crate) fn hold(&mut self, handle: &tokio::runtime::Handle) -> Result<bool> {
        let started = Instant::now();
        let now = Timestamp::now();
        let what = format!("lease {}", self.name);
        let Some(read) = call(handle, &format!("get {what}"), self.raw.get_opt(&self.name))? else {
            let lease = self.lease(None, now, now, 0);
            let won = call(
                handle,
                &format!("create {what}"),
                won(self.api.create(&PostParams::default(), &lease)),
            )?;
            return Ok(self.after_write(won, started));
        };
        let record = Record::of(&read.data, now);
        let observed = Observed {
            version: read.metadata.resource_version.clone(),
            holder: record.holder.clone(),
        };
        if self.observed.as_ref().map(|(o, _)| o) != Some(&observed) {
            self.observed = Some((observed, started));
        }
        let unchanged_for = self
            .observed
            .as_ref()
            .map_or(Duration::ZERO, |(_, t)| t.elapsed());
        let mine = record.holder == self.identity;
        let expired = unchanged_for >= self.duration || record.renewed.is_none();
        if !mine && !expired && !record.holder.is_empty() {
            self.leads_until = None;
            return Ok(false);
        }
        let (acquired, transitions) = if mine {
            (record.acquired.unwrap_or(now), record.transitions)
        } else {
            (now, record.transitions.saturating_add(1))
        };
        let lease = self.lease(read.metadata.resource_version, acquired, now, transitions);
        let won = call(
            handle,
            &format!("update {what}"),
            won(self.api.replace(&self.name, &PostParams::default(), &lease)),
        )?;
        Ok(self.after_write(won, started))
    }

    fn after_write(&mut self, won: bool, started: Instant) -> bool {
        self.leads_until = won.then(|| started + self.duration * 2 / 3);
        won
    }

    fn lease(
        &self,
        version: Option<String>,
        acquired: Timestamp,
        now: Timestamp,
        transitions: i32,
    ) -> Lease {
        Lease {
            metadata: ObjectMeta {
                name: Some(self.name.clone()),
                resource_version: version,
                ..Default::default()
            },
            spec: Some(LeaseSpec {
                holder_identity: Some(self.identity.clone()),
                lease_duration_seconds: Some(
                    i32::try_from(self.duration.as_secs()).unwrap_or(i32::MAX),
                ),
                acquire_time: Some(MicroTime(acquired)),
                renew_time: Some(MicroTime(now)),
                lease_transitions: Some(transitions),
                ..Default::default()
            }),
        }
    }
}

impl Record {
    /// The Lease's spec as JSON; what cannot be read is missing or unreadable, never an error.
    fn of(data: &Value, now: Timestamp) -> Record {
        let spec = &data["spec"];
        let text = |key: &str| spec[key].as_str();
        let time = |key: &str| text(key).and_then(|t| t.parse::<Timestamp>().ok());
        let latest = now.checked_add(skew()).unwrap_or(now);
        Record {
            holder: text("holderIdentity").unwrap_or("").to_string(),
            renewed: time("renewTime").filter(|at| *at <= latest),
            acquired: time("acquireTime"),
            transitions: spec["leaseTransitions"]
                .as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .unwrap_or(0)
                .max(0),
        }
    }
}

fn skew() -> SignedDuration {
    SignedDuration::try_from(MAX_SKEW).unwrap_or(SignedDuration::ZERO)
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn record(spec: Value) -> Record {
        let now: Timestamp = "2026-12-03T12:00:00Z".parse().unwrap();
        Record::of(&json!({ "spec": spec }), now)
    }

    #[test]
    fn a_renewal_that_cannot_be_true_is_no_renewal() {
        let r = record(
            json!({ "holderIdentity": "a", "renewTime": "2026-12-03T11:59:59.123456Z", "leaseTransitions": 3 }),
        );
        assert!(r.renewed.is_some() && r.holder == "a" && r.transitions == 3);
        // Within the skew bound ahead: a clock a little fast.
        assert!(
            record(json!({ "renewTime": "2026-12-03T12:00:30Z" }))
                .renewed
                .is_some()
        );
        for bad in [
            json!("9999-12-31T23:59:59Z"),
            json!("2027-01-01T00:00:00Z"),
            json!("yesterday"),
            json!(12),
            json!(null),
        ] {
            assert!(
                record(json!({ "holderIdentity": "a", "renewTime": bad }))
                    .renewed
                    .is_none(),
                "{bad}"
            );
        }
        let odd =
            record(json!({ "holderIdentity": 7, "leaseTransitions": -5, "acquireTime": "x" }));
        assert_eq!(
            (odd.holder.as_str(), odd.transitions, odd.acquired),
            ("", 0, None)
        );
        assert_eq!(
            record(json!({ "leaseTransitions": i64::MAX })).transitions,
            0
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Any renewTime text: read or not, never a panic, and never a time past the bound.
        #[test]
        fn any_renew_time_is_answered(text in "[0-9TZ:.+-]{0,40}|.{0,40}") {
            let r = record(json!({ "holderIdentity": "a", "renewTime": text }));
            let latest: Timestamp = "2026-12-03T12:01:00Z".parse().unwrap();
            prop_assert!(r.renewed.is_none_or(|t| t <= latest));
        }
    }
}
