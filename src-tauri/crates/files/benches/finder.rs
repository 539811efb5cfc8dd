//! The `@` finder on a generated project of 100,000 files: the first walk (cold index) and a
//! query on the warm index, against the target of first results under 50 ms once warm.
//!
//! `cargo bench -p arbor-files --bench finder`

use criterion::{criterion_group, criterion_main, Criterion};

use arbor_files::{Excluded, FileIndex};

const FILES: usize = 100_000;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("tempdir: {error}"));
    // 100 top folders × 10 subfolders × 100 files, like a large monorepo's spread.
    for top in 0..100 {
        for sub in 0..10 {
            let folder = dir.path().join(format!("pkg{top:03}/module_{sub}"));
            std::fs::create_dir_all(&folder).unwrap_or_else(|error| panic!("{error}"));
            for file in 0..FILES / 1000 {
                std::fs::write(folder.join(format!("component_{file:03}.ts")), "x")
                    .unwrap_or_else(|error| panic!("{error}"));
            }
        }
    }
    dir
}

fn finder(c: &mut Criterion) {
    let dir = project();
    let mut group = c.benchmark_group("finder_100k");
    group.sample_size(10);
    group.bench_function("cold_walk_and_query", |b| {
        b.iter(|| {
            let index = FileIndex::new(dir.path(), Excluded::default());
            index.find("pkg042 module_3 comp17", 50)
        })
    });
    let index = FileIndex::new(dir.path(), Excluded::default());
    assert_eq!(index.find("", 1).len(), 1);
    assert_eq!(index.len(), FILES);
    group.sample_size(30);
    group.bench_function("warm_query", |b| {
        b.iter(|| index.find("pkg042/mod3/comp17", 50))
    });
    group.bench_function("warm_query_one_letter", |b| b.iter(|| index.find("c", 50)));
    group.finish();
}

criterion_group!(benches, finder);
criterion_main!(benches);
