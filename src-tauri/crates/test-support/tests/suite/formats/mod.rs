//! Each wire format against the running mock over loopback: the streamed events parse as that
//! format, reassemble to what the script said, and have the shape of the real recordings.

mod anthropic;
mod google;
mod openai_completions;
mod openai_responses;
