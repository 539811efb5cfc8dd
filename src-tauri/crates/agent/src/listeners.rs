//! Delivery of events to any number of listeners.
//!
//! Listeners are called synchronously, in subscription order, on the task that runs the loop,
//! so every listener sees every event in order (nothing is dropped for a slow reader, unlike a
//! broadcast channel). A listener should return quickly; [`crate::Agent::events`] gives an
//! unbounded channel for front ends that process events elsewhere.

use std::sync::Arc;

use arbor_protocol::AgentEvent;
use tokio::sync::mpsc;

/// Identifies a subscription, for [`crate::Agent::unsubscribe`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SubscriptionId(u64);

type Callback = Arc<dyn Fn(&AgentEvent) + Send + Sync>;

#[derive(Clone)]
enum Listener {
    Callback(Callback),
    Channel(mpsc::UnboundedSender<AgentEvent>),
}

#[derive(Default)]
pub(crate) struct Listeners {
    next_id: u64,
    entries: Vec<(SubscriptionId, Listener)>,
}

impl Listeners {
    pub(crate) fn add_callback(&mut self, callback: Callback) -> SubscriptionId {
        self.add(Listener::Callback(callback))
    }

    pub(crate) fn add_channel(
        &mut self,
        sender: mpsc::UnboundedSender<AgentEvent>,
    ) -> SubscriptionId {
        self.add(Listener::Channel(sender))
    }

    fn add(&mut self, listener: Listener) -> SubscriptionId {
        self.next_id += 1;
        let id = SubscriptionId(self.next_id);
        self.entries.push((id, listener));
        id
    }

    pub(crate) fn remove(&mut self, id: SubscriptionId) -> bool {
        let before = self.entries.len();
        self.entries.retain(|(entry, _)| *entry != id);
        self.entries.len() != before
    }

    /// A copy of the listeners, so they are called without holding the lock (a listener may
    /// subscribe or unsubscribe). Channels whose receiver is gone are dropped here.
    pub(crate) fn snapshot(&mut self) -> Vec<ListenerHandle> {
        self.entries.retain(|(_, listener)| match listener {
            Listener::Channel(sender) => !sender.is_closed(),
            Listener::Callback(_) => true,
        });
        self.entries
            .iter()
            .map(|(_, listener)| ListenerHandle(listener.clone()))
            .collect()
    }
}

/// One listener, detached from the list.
pub(crate) struct ListenerHandle(Listener);

impl ListenerHandle {
    pub(crate) fn deliver(&self, event: &AgentEvent) {
        match &self.0 {
            Listener::Callback(callback) => callback(event),
            // A closed receiver is pruned on the next snapshot.
            Listener::Channel(sender) => {
                let _ = sender.send(event.clone());
            }
        }
    }
}
