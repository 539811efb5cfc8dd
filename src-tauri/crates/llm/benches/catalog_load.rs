//! Loading a large `models.json` through `Catalog::load` (read, parse, merge over the built-in
//! catalogue): 100,000 and 1,000,000 models, once all under one provider and once one model per
//! provider. The time must grow linearly with the model count (it was quadratic: 2 million
//! models took minutes).
//!
//! Run: `cargo bench -p arbor-llm --bench catalog_load`

use std::hint::black_box;
use std::path::Path;

use arbor_llm::catalog::{Catalog, CUSTOM_FILE_NAME};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// Writes a `models.json` with `count` models: under one provider, or one provider each.
fn write_models_json(dir: &Path, count: usize, one_provider: bool) {
    let model = |i: usize| {
        format!(
            r#"{{"id":"model-{i:07}","contextWindow":131072,"maxOutputTokens":8192,"pricing":{{"input":0.1,"output":0.2}}}}"#
        )
    };
    let mut text = String::from(r#"{"providers":{"#);
    if one_provider {
        text.push_str(
            r#""bulk":{"api":"openai-completions","baseUrl":"http://gpu-box:8000/v1","models":["#,
        );
        for i in 0..count {
            if i > 0 {
                text.push(',');
            }
            text.push_str(&model(i));
        }
        text.push_str("]}");
    } else {
        for i in 0..count {
            if i > 0 {
                text.push(',');
            }
            text.push_str(&format!(
                r#""p-{i:07}":{{"api":"openai-completions","baseUrl":"http://gpu-box:8000/v1","models":[{}]}}"#,
                model(i)
            ));
        }
    }
    text.push_str("}}");
    if let Err(error) = std::fs::write(dir.join(CUSTOM_FILE_NAME), text) {
        panic!("cannot write the generated models.json: {error}");
    }
}

fn load(c: &mut Criterion) {
    let mut group = c.benchmark_group("catalog_load");
    for (shape, one_provider) in [("one_provider", true), ("provider_each", false)] {
        for count in [100_000usize, 1_000_000] {
            let dir = match tempfile::tempdir() {
                Ok(dir) => dir,
                Err(error) => panic!("no temporary folder: {error}"),
            };
            write_models_json(dir.path(), count, one_provider);
            // A load that drops models would measure less work than it claims.
            let catalog = match Catalog::load(dir.path()) {
                Ok(catalog) => catalog,
                Err(error) => panic!("the generated models.json did not load: {error}"),
            };
            let builtin: usize = match Catalog::builtin() {
                Ok(builtin) => builtin.providers().iter().map(|p| p.models.len()).sum(),
                Err(error) => panic!("{error}"),
            };
            let loaded: usize = catalog.providers().iter().map(|p| p.models.len()).sum();
            assert_eq!(loaded, builtin + count, "{shape}/{count}");
            drop(catalog);

            group.throughput(Throughput::Elements(count as u64));
            group.bench_with_input(BenchmarkId::new(shape, count), dir.path(), |b, path| {
                b.iter(|| Catalog::load(black_box(path)).map(|c| c.providers().len()))
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = load
}
criterion_main!(benches);
