//! SSE parse + normalise throughput: a large generated stream of each wire format, fed to
//! `StreamDecoder` in 16 KiB network-sized chunks. Reports bytes/s (criterion `Throughput`).
//!
//! Run: `cargo bench -p arbor-llm --bench stream_throughput`

use std::hint::black_box;

use arbor_llm::{Api, StreamDecoder};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// About `target` bytes of a text answer with a tool call at the end, framed as `api` sends it.
fn generated_stream(api: Api, target: usize) -> Vec<u8> {
    let mut out = String::new();
    let piece = "let value = compute(item);\\n    ";
    match api {
        Api::AnthropicMessages => {
            out.push_str("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n");
            out.push_str("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
            while out.len() < target {
                out.push_str(&format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{piece}\"}}}}\n\n"));
            }
            out.push_str("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n");
            out.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":999}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
        }
        Api::OpenAiCompletions => {
            while out.len() < target {
                out.push_str(&format!("data: {{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{piece}\"}},\"finish_reason\":null}}]}}\n\n"));
            }
            out.push_str("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
        }
        Api::OpenAiResponses => {
            out.push_str("event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\",\"model\":\"m\",\"output\":[]}}\n\n");
            out.push_str("event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"message\",\"id\":\"msg_1\",\"role\":\"assistant\",\"content\":[]}}\n\n");
            while out.len() < target {
                out.push_str(&format!("event: response.output_text.delta\ndata: {{\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"{piece}\"}}\n\n"));
            }
            out.push_str("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"status\":\"completed\",\"model\":\"m\",\"output\":[],\"usage\":{\"input_tokens\":10,\"output_tokens\":999}}}\n\n");
        }
        Api::GoogleGenerativeAi => {
            while out.len() < target {
                out.push_str(&format!("data: {{\"candidates\":[{{\"content\":{{\"parts\":[{{\"text\":\"{piece}\"}}],\"role\":\"model\"}},\"index\":0}}],\"modelVersion\":\"m\"}}\r\n\r\n"));
            }
            out.push_str("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}],\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":10,\"candidatesTokenCount\":999}}\r\n\r\n");
        }
    }
    out.into_bytes()
}

fn decode_all(api: Api, stream: &[u8]) -> usize {
    let mut decoder = StreamDecoder::new(api, "bench", "m");
    let mut events = 0;
    for chunk in stream.chunks(16 * 1024) {
        events += decoder.feed(chunk).len();
    }
    events + decoder.finish().len()
}

fn throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("sse_decode");
    for api in Api::ALL {
        let stream = generated_stream(api, 4 * 1024 * 1024);
        // A stream that does not end in `done` would measure the error path instead.
        assert!(
            decode_all(api, &stream) > 1000,
            "{api}: the generated stream did not decode"
        );
        group.throughput(Throughput::Bytes(stream.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(api.as_str()),
            &stream,
            |b, stream| b.iter(|| decode_all(api, black_box(stream))),
        );
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = throughput
}
criterion_main!(benches);
