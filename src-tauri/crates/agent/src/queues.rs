//! Messages waiting for a running agent: steering (interrupts) and follow-ups.
//!
//! - **Steering** is checked after every tool call finishes (sequential execution) or after all
//!   of a turn's calls finish (parallel execution), and at the end of every turn. When found,
//!   the calls of the turn that have not started are skipped (each gets an error result with
//!   [`crate::SKIPPED_FOR_STEERING`]), the turn ends, and the next turn begins by delivering
//!   every queued steering message, in order.
//! - **Follow-ups** are delivered only when the agent would otherwise stop (the model answered
//!   without tool calls and no steering is queued): all queued follow-ups start the next turn.
//!
//! Messages queued while the agent is idle wait for the next run, which delivers them after its
//! own prompt. [`crate::Agent::abort`] empties both queues and hands their contents back.

use std::collections::VecDeque;

use arbor_protocol::AgentMessage;

/// The two queues. Kept behind one lock so "is anything queued?" is a consistent answer.
#[derive(Debug, Default)]
pub(crate) struct Queues {
    steering: VecDeque<AgentMessage>,
    follow_ups: VecDeque<AgentMessage>,
}

/// A queued message's text (queued messages are text only).
fn text_of(message: &arbor_llm::UserMessage) -> String {
    message
        .content
        .iter()
        .filter_map(|part| match part {
            arbor_llm::UserContent::Text(text) => Some(text.text.as_str()),
            arbor_llm::UserContent::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Which queue a message waits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueKind {
    /// Delivered after the running tool call(s).
    Steering,
    /// Delivered when the agent would otherwise stop.
    FollowUp,
}

/// What was still queued when a run was aborted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueuedMessages {
    pub steering: Vec<AgentMessage>,
    pub follow_ups: Vec<AgentMessage>,
}

impl QueuedMessages {
    pub fn is_empty(&self) -> bool {
        self.steering.is_empty() && self.follow_ups.is_empty()
    }

    /// The texts of the messages, steering first: what a front end gives back to its user.
    pub fn texts(&self) -> Vec<String> {
        self.steering
            .iter()
            .chain(&self.follow_ups)
            .filter_map(|message| match message {
                AgentMessage::User(user) => Some(text_of(user)),
                _ => None,
            })
            .collect()
    }
}

impl Queues {
    pub(crate) fn push_steering(&mut self, message: AgentMessage) {
        self.steering.push_back(message);
    }

    pub(crate) fn push_follow_up(&mut self, message: AgentMessage) {
        self.follow_ups.push_back(message);
    }

    pub(crate) fn has_steering(&self) -> bool {
        !self.steering.is_empty()
    }

    pub(crate) fn take_steering(&mut self) -> Vec<AgentMessage> {
        self.steering.drain(..).collect()
    }

    pub(crate) fn take_follow_ups(&mut self) -> Vec<AgentMessage> {
        self.follow_ups.drain(..).collect()
    }

    /// Everything queued, steering first (the order a new run delivers them in).
    pub(crate) fn take_all(&mut self) -> Vec<AgentMessage> {
        let mut all = self.take_steering();
        all.extend(self.take_follow_ups());
        all
    }

    pub(crate) fn clear(&mut self) -> QueuedMessages {
        QueuedMessages {
            steering: self.take_steering(),
            follow_ups: self.take_follow_ups(),
        }
    }

    /// Takes the first queued message of `kind` whose text is `text` out of its queue: whether
    /// there was one (there is not when it was delivered meanwhile).
    pub(crate) fn remove(&mut self, kind: QueueKind, text: &str) -> bool {
        let queue = match kind {
            QueueKind::Steering => &mut self.steering,
            QueueKind::FollowUp => &mut self.follow_ups,
        };
        let found = queue.iter().position(|message| match message {
            AgentMessage::User(user) => text_of(user) == text,
            _ => false,
        });
        found.and_then(|index| queue.remove(index)).is_some()
    }

    pub(crate) fn counts(&self) -> (usize, usize) {
        (self.steering.len(), self.follow_ups.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_llm::UserMessage;

    fn user(text: &str) -> AgentMessage {
        AgentMessage::User(UserMessage::text(text))
    }

    #[test]
    fn queues_keep_order_and_clear_hands_back_everything() {
        let mut queues = Queues::default();
        queues.push_follow_up(user("f1"));
        queues.push_steering(user("s1"));
        queues.push_steering(user("s2"));
        assert!(queues.has_steering());
        assert_eq!(queues.counts(), (2, 1));
        assert_eq!(queues.take_all(), vec![user("s1"), user("s2"), user("f1")]);
        queues.push_steering(user("s3"));
        let cleared = queues.clear();
        assert_eq!(cleared.steering, vec![user("s3")]);
        assert!(cleared.follow_ups.is_empty());
        assert!(queues.clear().is_empty());
    }

    #[test]
    fn a_queued_message_is_taken_out_by_its_text_once() {
        let mut queues = Queues::default();
        queues.push_steering(user("same"));
        queues.push_steering(user("same"));
        queues.push_follow_up(user("later"));
        assert!(!queues.remove(QueueKind::Steering, "later"));
        assert!(queues.remove(QueueKind::Steering, "same"));
        assert_eq!(queues.counts(), (1, 1));
        assert!(queues.remove(QueueKind::FollowUp, "later"));
        assert!(!queues.remove(QueueKind::FollowUp, "later"));
        let left = queues.clear();
        assert_eq!(left.texts(), ["same"]);
    }
}
